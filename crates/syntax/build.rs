//! Generates the parser from `grammar/amp.lalrpop` at the repository root.

fn main() {
    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".to_string());
    println!("cargo:rerun-if-changed=../../grammar/amp.lalrpop");
    let result = lalrpop::Configuration::new()
        .set_in_dir("../../grammar")
        .set_out_dir(&out_dir)
        .emit_rerun_directives(true)
        .process_dir("../../grammar");
    if let Err(err) = result {
        eprintln!("lalrpop failed: {err}");
        std::process::exit(1);
    }
}
