//! Computes the bear-off database's tables and leaves them in `OUT_DIR` for the library to
//! embed (src/eval/bearoff.rs says why). The module is the library's own file, compiled here
//! too; it uses nothing but `std`.

use std::{env, fs, path::PathBuf};

#[allow(dead_code)]
#[path = "src/eval/bearoff/table.rs"]
mod table;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/eval/bearoff/table.rs");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bytes = table::generate().to_bytes();
    fs::write(out.join("bearoff.bin"), bytes).expect("OUT_DIR is writable");
}
