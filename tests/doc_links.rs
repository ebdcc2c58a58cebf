//! The documentation points at things that exist: every relative link of every Markdown
//! file names a file of the repository (and, with `#anchor`, a heading of it), every path
//! of a document, weights file or config file named in a comment of the sources, tests or
//! scripts exists, and the command-line reference names every subcommand and every long
//! flag the argument parser knows.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

/// The repository's root (the package's manifest directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Folders never searched: build output, version control, fuzzing's inputs and outputs.
fn skipped(rel: &Path) -> bool {
    let text = rel.to_string_lossy().replace('\\', "/");
    let first = text.split('/').next().unwrap_or("");
    first == "target"
        || first.starts_with('.')
        || text == "fuzz/corpus"
        || text == "fuzz/artifacts"
        || text == "fuzz/target"
        || text.starts_with("fuzz/corpus/")
        || text.starts_with("fuzz/artifacts/")
        || text.starts_with("fuzz/target/")
}

/// Every file under `dir` (relative to the root) whose name ends with one of `exts`,
/// sorted.
fn files_under(dir: &str, exts: &[&str]) -> Vec<PathBuf> {
    let base = root();
    let mut out = Vec::new();
    let mut stack = vec![base.join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(&base).unwrap().to_path_buf();
            if skipped(&rel) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if exts
                .iter()
                .any(|e| path.to_string_lossy().ends_with(&format!(".{e}")))
            {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// A Markdown file's lines outside fenced code blocks, with their line numbers (1-based).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

/// `line` with its code spans blanked out (a link inside backticks is no link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The destinations of the inline links `[text](dest)` and images `![alt](dest)` of a line,
/// and of a reference definition `[label]: dest`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut out = Vec::new();
    let t = line.trim_start();
    if t.starts_with('[') {
        if let Some(close) = t.find("]:") {
            if !t[..close].contains('(') {
                if let Some(dest) = t[close + 2..].split_whitespace().next() {
                    out.push(dest.trim_matches(['<', '>']).to_string());
                }
                return out;
            }
        }
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(k) = line[i..].find("](") {
        let start = i + k + 2;
        // The destination runs to the parenthesis that closes it (one level of nesting).
        let mut depth = 1;
        let mut end = start;
        while end < bytes.len() {
            match bytes[end] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            end += 1;
        }
        if end >= bytes.len() {
            break;
        }
        let inside = line[start..end].trim();
        // An optional title after the destination: `(path "title")`.
        let dest = inside.split_whitespace().next().unwrap_or("");
        out.push(dest.trim_matches(['<', '>']).to_string());
        i = end + 1;
    }
    out
}

/// A heading's anchor as GitHub makes it: the text as rendered (no code marks, emphasis
/// or link targets), lower case, every character but letters, digits, spaces, `-` and `_`
/// dropped, spaces turned into hyphens.
fn slug(heading: &str) -> String {
    // Links keep their text: `[text](dest)` becomes `text`.
    let mut rendered = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        rendered.push_str(&rest[..open]);
        rendered.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    rendered.push_str(rest);
    rendered
        .chars()
        .filter(|c| !matches!(c, '`' | '*'))
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`, ... as
/// on GitHub), and of any HTML `id="..."` or `name="..."` attributes.
fn anchors(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for (_, line) in prose_lines(text) {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            let title = t[hashes..].trim().trim_end_matches('#').trim();
            let base = slug(title);
            let mut name = base.clone();
            let mut n = 0;
            while out.contains(&name) {
                n += 1;
                name = format!("{base}-{n}");
            }
            out.insert(name);
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(k) = rest.find(attr) {
                let after = &rest[k + attr.len()..];
                if let Some(end) = after.find('"') {
                    out.insert(after[..end].to_string());
                }
                rest = after;
            }
        }
    }
    out
}

/// The Markdown files of the repository: the top level, docs/ and any other folder
/// (build output and fuzz corpora excepted).
fn markdown_files() -> Vec<PathBuf> {
    files_under("", &["md"])
}

#[test]
fn markdown_links_name_existing_files_and_headings() {
    let base = root();
    let files = markdown_files();
    for must in [
        "README.md",
        "ARCHITECTURE.md",
        "docs/protocols.md",
        "docs/cli.md",
    ] {
        assert!(
            files.iter().any(|f| f == Path::new(must)),
            "{must} not found"
        );
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(base.join(file)).unwrap();
        let dir = file.parent().unwrap_or(Path::new(""));
        for (number, line) in prose_lines(&text) {
            for dest in link_targets(line) {
                if dest.is_empty() || dest.contains("://") || dest.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = match dest.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (dest.as_str(), None),
                };
                let at = format!("{}:{number}: {dest}", file.display());
                let target = if path.is_empty() {
                    base.join(file)
                } else if let Some(from_root) = path.strip_prefix('/') {
                    base.join(from_root)
                } else {
                    base.join(dir).join(path)
                };
                if !target.exists() {
                    broken.push(format!("{at} (no such file)"));
                    continue;
                }
                let Some(anchor) = anchor else {
                    continue;
                };
                if !target.to_string_lossy().ends_with(".md") {
                    continue;
                }
                let target_text = std::fs::read_to_string(&target).unwrap();
                if !anchors(&target_text).contains(anchor) {
                    broken.push(format!("{at} (no heading with that anchor)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The comment part of a line of a source file (`//` in Rust and JavaScript, `#` in shell
/// and Python), or `None` when the line holds no comment. A marker inside a string (an
/// odd number of `"` before it) does not count.
fn comment_of<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let t = line.trim_start();
    if marker == "#" && t.starts_with("#!") {
        return None;
    }
    if let Some(rest) = t.strip_prefix(marker) {
        return Some(rest);
    }
    let mut from = 0;
    while let Some(k) = line[from..].find(marker) {
        let at = from + k;
        let before = &line[..at];
        let quotes = before.matches('"').count() - before.matches("\\\"").count();
        if quotes.is_multiple_of(2) && before.ends_with([' ', '\t']) {
            return Some(&line[at + marker.len()..]);
        }
        from = at + marker.len();
    }
    None
}

/// Where a path a comment names begins.
const PATH_STARTS: [&str; 6] = [
    "docs/",
    "weights/",
    "config/",
    "README.md",
    "ARCHITECTURE.md",
    "CHANGELOG.md",
];

/// The repository paths a comment names: the Markdown documents (of the docs folder and
/// the top level), weights files and config files.
fn named_paths(comment: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_-./*{}".contains(c);
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = comment.char_indices().collect();
    for (n, &(i, _)) in chars.iter().enumerate() {
        let rest = &comment[i..];
        let starts = PATH_STARTS.iter().any(|p| rest.starts_with(p));
        // A path begins here, not inside a longer one (`src/config/`, `../docs/`).
        let preceded = n > 0 && {
            let c = chars[n - 1].1;
            is_path_char(c) || c == ':'
        };
        if !starts || preceded {
            continue;
        }
        let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['.', '/']);
        if path.starts_with("docs/") && !path.ends_with(".md") {
            continue;
        }
        out.push(path.to_string());
    }
    out
}

/// Whether `name` matches `pattern`, where `*` and `{...}` stand for any run of characters.
fn wildcard_match(pattern: &str, name: &str) -> bool {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut in_brace = false;
    for c in pattern.chars() {
        match c {
            '{' => {
                in_brace = true;
                parts.push(std::mem::take(&mut literal));
            }
            '}' => in_brace = false,
            '*' if !in_brace => parts.push(std::mem::take(&mut literal)),
            _ if in_brace => {}
            c => literal.push(c),
        }
    }
    parts.push(literal);
    let (first, rest) = parts.split_first().unwrap();
    let Some(mut tail) = name.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return tail.is_empty();
    };
    for part in middle {
        match tail.find(part.as_str()) {
            Some(k) => tail = &tail[k + part.len()..],
            None => return false,
        }
    }
    tail.ends_with(last.as_str())
}

/// Whether a path named in a comment exists; a wildcard in its last part must match at
/// least one file.
fn path_exists(path: &str) -> bool {
    let base = root();
    if !path.contains(['*', '{']) {
        return base.join(path).exists();
    }
    let (dir, pattern) = path.rsplit_once('/').unwrap_or(("", path));
    let Ok(entries) = std::fs::read_dir(base.join(dir)) else {
        return false;
    };
    entries
        .flatten()
        .any(|e| wildcard_match(pattern, &e.file_name().to_string_lossy()))
}

#[test]
fn paths_named_in_comments_exist() {
    let base = root();
    let mut missing = Vec::new();
    let mut seen = 0;
    for dir in ["src", "tests", "scripts"] {
        for file in files_under(dir, &["rs", "sh", "py", "mjs", "js"]) {
            let marker = match file.extension().and_then(|e| e.to_str()) {
                Some("sh" | "py") => "#",
                _ => "//",
            };
            let text = std::fs::read_to_string(base.join(&file)).unwrap();
            for (i, line) in text.lines().enumerate() {
                let Some(comment) = comment_of(line, marker) else {
                    continue;
                };
                for path in named_paths(comment) {
                    seen += 1;
                    if !path_exists(&path) {
                        missing.push(format!("{}:{}: {path}", file.display(), i + 1));
                    }
                }
            }
        }
    }
    assert!(
        seen > 0,
        "no paths found in comments: the scanner is broken"
    );
    assert!(
        missing.is_empty(),
        "comments name files that do not exist:\n{}",
        missing.join("\n")
    );
}

/// docs/cli.md's sections: each heading's text and the text up to the next heading of the
/// same or a higher level.
fn sections(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let level = |l: &str| {
        let h = l.chars().take_while(|&c| c == '#').count();
        ((1..=6).contains(&h) && l[h..].starts_with(' ')).then_some(h)
    };
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(h) = level(line) else {
            continue;
        };
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| !matches!(level(l), Some(k) if k <= h))
            .copied()
            .collect();
        out.push((line[h..].trim().to_string(), body.join("\n")));
    }
    out
}

/// Every subcommand path (`["bench", "search"]`) with its command, depth first.
fn subcommands(
    cmd: &clap::Command,
    path: &mut Vec<String>,
    out: &mut Vec<(String, clap::Command)>,
) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        path.push(sub.get_name().to_string());
        out.push((path.join(" "), sub.clone()));
        subcommands(sub, path, out);
        path.pop();
    }
}

#[test]
fn the_cli_reference_names_every_subcommand_and_flag() {
    let text = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let sections = sections(&text);
    let mut all = Vec::new();
    subcommands(&stargammon::cli::Cli::command(), &mut Vec::new(), &mut all);
    assert!(all.len() >= 14, "only {} subcommands found", all.len());
    let mut missing = Vec::new();
    for (path, cmd) in &all {
        let title = format!("`stargammon {path}`");
        let Some((_, body)) = sections.iter().find(|(h, _)| h.contains(&title)) else {
            missing.push(format!("no heading names {title}"));
            continue;
        };
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else {
                if arg.is_positional() {
                    let name = arg
                        .get_value_names()
                        .and_then(|v| v.first())
                        .map_or_else(|| arg.get_id().as_str().to_uppercase(), |n| n.to_string());
                    if !body.contains(&name) {
                        missing.push(format!("{title}: the argument {name}"));
                    }
                }
                continue;
            };
            if matches!(long, "help" | "version") {
                continue;
            }
            let flag = format!("--{long}");
            // The flag as a word of its own, not the start of a longer one.
            let found = body.match_indices(&flag).any(|(k, _)| {
                !body[k + flag.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
            });
            if !found {
                missing.push(format!("{title}: {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/cli.md does not document:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_slugs_follow_github() {
    assert_eq!(slug("Machine and method"), "machine-and-method");
    assert_eq!(slug("Server and HTTP API"), "server-and-http-api");
    assert_eq!(
        slug("Players and duels (`src/players/tavli.rs`, `src/arena/tavli.rs`)"),
        "players-and-duels-srcplayerstavlirs-srcarenatavlirs"
    );
    assert_eq!(slug("`stargammon bench search`"), "stargammon-bench-search");
    assert_eq!(slug("Gnubg's external player"), "gnubgs-external-player");
    let a = anchors("# A\n## Notes\n```\n# not a heading\n```\n## Notes\n");
    assert!(a.contains("a") && a.contains("notes") && a.contains("notes-1"));
    assert!(!a.contains("not-a-heading"));
    assert_eq!(
        link_targets("see [x](a.md#b), ![i](p.png \"t\") and `[no](c.md)`"),
        vec!["a.md#b", "p.png"]
    );
    assert_eq!(
        named_paths("reads config/default.toml and weights/tavli-*.sgnet (docs/cli.md)."),
        vec![
            "config/default.toml",
            "weights/tavli-*.sgnet",
            "docs/cli.md"
        ]
    );
    assert!(named_paths("src/config/mod.rs and ../docs/x.md").is_empty());
    assert!(wildcard_match("tavli-{variant}.toml", "tavli-fevga.toml"));
    assert!(!wildcard_match("tavli-*.sgnet", "td.sgnet"));
}
