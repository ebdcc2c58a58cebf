//! The layers of ARCHITECTURE.md only point down: no module of src/ names a module of a
//! higher layer. Reads every file of src/, splits off the items under `#[cfg(test)]` (the
//! unit tests), and checks each `crate::LAYER` path (in `use` lines and inline) against
//! the order: the code itself may use only its own layer and those below; its tests the
//! same, and `crate::testing` besides, the fixtures module that builds only on the layers
//! below it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// Bottom first; a module may use only those before it (and itself).
const LAYERS: &[&str] = &[
    "game", "notation", "tavli", "testing", "eval", "cube", "search", "engine", "rollout",
    "analysis", "protocol", "config", "players", "arena", "train", "server", "http", "fibs",
    "bgammon", "bench", "cli",
];

/// The layer whose fixtures the tests of every layer may use.
const FIXTURES: &str = "testing";

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source split in two, both without comments (which may name any layer): the code
/// outside the items under `#[cfg(test)]`, and those items (a brace-matched copy of the
/// item that follows the attribute).
fn split_test_code(text: &str) -> (String, String) {
    let (mut code, mut tests) = (String::new(), String::new());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            // The next item: up to the end of its first brace-balanced block, or a line
            // ending in ';' before any brace opens.
            let mut depth = 0i32;
            let mut opened = false;
            for l in lines.by_ref() {
                let part = l.split("//").next().unwrap_or("");
                tests.push_str(part);
                tests.push('\n');
                for c in part.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                if (opened && depth <= 0) || (!opened && part.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        code.push_str(line.split("//").next().unwrap_or(""));
        code.push('\n');
    }
    (code, tests)
}

/// Every layer named as `crate::LAYER` in `code`.
fn named_layers(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push(name);
        }
        rest = after;
    }
    // `use crate::{a, b}` groups.
    let mut rest = code;
    while let Some(i) = rest.find("crate::{") {
        let after = &rest[i + "crate::{".len()..];
        let group = after.split('}').next().unwrap_or("");
        for part in group.split(',') {
            let name: String = part
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
        rest = after;
    }
    found
}

#[test]
fn no_import_reaches_up_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut tests_checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let layer = top.trim_end_matches(".rs").to_string();
        let Some(own) = rank(&layer) else {
            // lib.rs and main.rs sit above every layer.
            assert!(
                layer == "lib" || layer == "main",
                "{}: a module missing from LAYERS (add it to the order here and in ARCHITECTURE.md)",
                rel.display()
            );
            continue;
        };
        checked += 1;
        let (code, tests) = split_test_code(&std::fs::read_to_string(file).unwrap());
        let named = named_layers(&code).into_iter().map(|n| (n, false));
        for (named, in_tests) in named.chain(named_layers(&tests).into_iter().map(|n| (n, true))) {
            let which = if in_tests { "its tests use" } else { "uses" };
            match rank(&named) {
                Some(_) if in_tests && named == FIXTURES => {}
                Some(r) if r > own => problems.push(format!(
                    "{} ({layer}): {which} crate::{named}, a higher layer",
                    rel.display()
                )),
                Some(_) => {}
                None => problems.push(format!(
                    "{}: crate::{named} is not a known layer",
                    rel.display()
                )),
            }
            tests_checked += usize::from(in_tests);
        }
    }
    assert!(checked > 50, "only {checked} files found under src/");
    assert!(
        tests_checked > 50,
        "only {tests_checked} paths found in tests"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_what_it_must() {
    let (code, tests) = split_test_code(
        "use crate::game::Position;\n\
         use crate::{eval, search::Searcher};\n\
         // crate::cli in a comment\n\
         fn f() { crate::cube::x(); }\n\
         #[cfg(test)]\n\
         mod tests {\n    use crate::cli::x;\n    fn g() { if true { crate::testing::t(); } }\n}\n\
         #[cfg(test)]\n\
         use crate::server::y;\n\
         fn h() { crate::notation::z(); }\n",
    );
    let mut named = named_layers(&code);
    named.sort();
    assert_eq!(named, ["cube", "eval", "game", "notation", "search"]);
    let mut named = named_layers(&tests);
    named.sort();
    assert_eq!(named, ["cli", "server", "testing"]);
}
