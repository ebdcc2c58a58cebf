//! The learning curve: benchmark rows in CSV, drawn as a hand-written SVG.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use super::TrainError;

/// One benchmark against pubeval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub games: u64,
    pub minutes: f64,
    pub ppg: f64,
    pub ci95: f64,
    pub alpha: f32,
    pub lambda: f32,
}

const HEADER: &str = "games,minutes,ppg,ci95,alpha,lambda";

fn err(path: &Path, e: std::io::Error) -> TrainError {
    TrainError::Io(format!("{}: {e}", path.display()))
}

/// Appends a row, writing the header first for a new file.
pub fn append_csv(path: &Path, p: &CurvePoint) -> Result<(), TrainError> {
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| err(path, e))?;
    if new {
        writeln!(f, "{HEADER}").map_err(|e| err(path, e))?;
    }
    writeln!(
        f,
        "{},{:.2},{:.4},{:.4},{},{}",
        p.games, p.minutes, p.ppg, p.ci95, p.alpha, p.lambda
    )
    .map_err(|e| err(path, e))
}

/// Reads the rows (a missing file has none; unreadable rows are skipped).
pub fn read_csv(path: &Path) -> Result<Vec<CurvePoint>, TrainError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).map_err(|e| err(path, e))?;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 6 {
            continue;
        }
        let parsed = (|| {
            Some(CurvePoint {
                games: f[0].parse().ok()?,
                minutes: f[1].parse().ok()?,
                ppg: f[2].parse().ok()?,
                ci95: f[3].parse().ok()?,
                alpha: f[4].parse().ok()?,
                lambda: f[5].parse().ok()?,
            })
        })();
        if let Some(p) = parsed {
            out.push(p);
        }
    }
    Ok(out)
}

/// Drops rows measured after `games` (they will be measured again after a resume).
pub fn truncate_csv(path: &Path, games: u64) -> Result<(), TrainError> {
    if !path.exists() {
        return Ok(());
    }
    let rows = read_csv(path)?;
    let mut text = String::from(HEADER);
    text.push('\n');
    for p in rows.iter().filter(|p| p.games <= games) {
        let _ = writeln!(
            text,
            "{},{:.2},{:.4},{:.4},{},{}",
            p.games, p.minutes, p.ppg, p.ci95, p.alpha, p.lambda
        );
    }
    std::fs::write(path, text).map_err(|e| err(path, e))
}

/// An SVG chart of ppg against games played, with 95% error bars.
pub fn svg(points: &[CurvePoint], title: &str) -> String {
    let (w, h) = (720.0, 420.0);
    let (left, right, top, bottom) = (70.0, 20.0, 40.0, 50.0);
    let max_games = points.iter().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let lo = points
        .iter()
        .map(|p| p.ppg - p.ci95.max(0.0))
        .fold(0.0f64, f64::min)
        .floor_to(0.25);
    let hi = points
        .iter()
        .map(|p| p.ppg + p.ci95.max(0.0))
        .fold(0.75f64, f64::max)
        .ceil_to(0.25);
    let x = |g: f64| left + (w - left - right) * g / max_games;
    let y = |v: f64| top + (h - top - bottom) * (hi - v) / (hi - lo);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        w / 2.0,
        escape(title)
    );
    // Horizontal grid every 0.25 ppg.
    let mut v = lo;
    while v <= hi + 1e-9 {
        let yy = y(v);
        let colour = if v.abs() < 1e-9 { "#888" } else { "#ddd" };
        let _ = writeln!(
            s,
            r#"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{colour}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:+.2}</text>"#,
            w - right,
            left - 6.0,
            yy + 4.0
        );
        v += 0.25;
    }
    // Vertical ticks: 5 intervals.
    for k in 0..=5 {
        let g = max_games * k as f64 / 5.0;
        let xx = x(g);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#888"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            h - bottom,
            h - bottom + 5.0,
            h - bottom + 20.0,
            short(g)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">self-play games</text>"#,
        left + (w - left - right) / 2.0,
        h - 10.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">ppg vs pubeval (95% CI)</text>"#,
        top + (h - top - bottom) / 2.0,
        top + (h - top - bottom) / 2.0
    );
    for p in points {
        if p.ci95.is_finite() {
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#9bd"/>"##,
                x(p.games as f64),
                y(p.ppg - p.ci95),
                x(p.games as f64),
                y(p.ppg + p.ci95)
            );
        }
    }
    let path: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.games as f64), y(p.ppg)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#1565c0" stroke-width="2"/>"##,
        path.join(" ")
    );
    for p in points {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="#1565c0"/>"##,
            x(p.games as f64),
            y(p.ppg)
        );
    }
    s.push_str("</svg>\n");
    s
}

trait RoundTo {
    fn floor_to(self, step: f64) -> f64;
    fn ceil_to(self, step: f64) -> f64;
}

impl RoundTo for f64 {
    fn floor_to(self, step: f64) -> f64 {
        (self / step).floor() * step
    }
    fn ceil_to(self, step: f64) -> f64 {
        (self / step).ceil() * step
    }
}

fn short(g: f64) -> String {
    if g >= 1e6 {
        format!("{:.1}M", g / 1e6)
    } else if g >= 1e3 {
        format!("{:.0}k", g / 1e3)
    } else {
        format!("{g:.0}")
    }
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
