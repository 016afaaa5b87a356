//! The one escaping path for text from outside the book's own words.

/// The one escaping path for text that comes from outside the book's own
/// words (a results file, a published dataset, a claim): safe in HTML
/// element content, in quoted attribute values, in SVG text and in markdown
/// (where the entities render as the characters they stand for).
pub fn escape(s: &str) -> String {
    html_escape::encode_quoted_attribute(s).into_owned()
}

/// [`escape`] for text that lands in markdown: code spans (`` `Vec<u8>` ``)
/// are left as they are, since markdown shows their contents literally and
/// safely; everything else is escaped.
pub fn escape_markdown(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len() % 2 == 0 {
        return escape(s);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 2 == 1 { p.to_string() } else { escape(p) })
        .collect::<Vec<_>>()
        .join("`")
}

/// Kept for the callers that still say what they escape for.
pub fn html_escape(s: &str) -> String {
    escape(s)
}
