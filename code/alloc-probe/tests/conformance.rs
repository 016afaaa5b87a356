//! The chapter does what every chapter must (the harness's conformance
//! suite, over a smoke run): every exhibit renders, the headline is sound,
//! the answer names it, the CSV holds numbers, `check` refuses a broken
//! count, hostile text is escaped, every listing on the page shows code.

#[test]
fn conforms() {
    harness::conformance::check(
        env!("CARGO_BIN_EXE_alloc-probe"),
        &["/grid/0/footprint/messages"],
    );
}
