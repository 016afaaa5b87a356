//! Every listing the page includes exists and is not empty: mdBook would
//! silently include nothing.

#[test]
fn every_included_anchor_exists_and_is_not_empty() {
    let root = harness::code_dir().join("channel-latency");
    let page_path = root.join("../../src/channel-latency.md");
    let page = std::fs::read_to_string(&page_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", page_path.display()));
    let mut seen = 0;
    for include in page.split("{{#include ").skip(1) {
        let target = include.split("}}").next().unwrap().trim();
        let (file, anchor) = target
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("include {target} names no anchor"));
        let path = page_path.parent().unwrap().join(file);
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("include {target}: cannot read {}: {e}", path.display()));
        let start = format!("// ANCHOR: {anchor}\n");
        let end = format!("// ANCHOR_END: {anchor}");
        let from = source
            .find(&start)
            .unwrap_or_else(|| panic!("{file} has no anchor {anchor}"));
        let body = &source[from + start.len()..];
        let to = body
            .find(&end)
            .unwrap_or_else(|| panic!("{file}: anchor {anchor} is never closed"));
        assert!(
            body[..to]
                .lines()
                .any(|l| !l.trim().is_empty() && !l.contains("ANCHOR")),
            "{file}: anchor {anchor} is empty"
        );
        seen += 1;
    }
    assert!(seen > 0, "the page includes no listing");
}
