//! Finding one point of an experiment's grid by its key, with an error that
//! names the key when it is missing (a results file from another version, a
//! profile that skipped the point).
use std::fmt::Debug;

use anyhow::{bail, Result};

/// The one point of `points` whose `key_of` is `key`; an error naming
/// `what` and the key when there is none, or more than one.
pub fn find<'a, P, K>(
    points: &'a [P],
    what: &str,
    key: K,
    key_of: impl Fn(&'a P) -> K,
) -> Result<&'a P>
where
    K: PartialEq + Debug,
{
    let mut found = points.iter().filter(|p| key_of(p) == key);
    match (found.next(), found.next()) {
        (Some(p), None) => Ok(p),
        (None, _) => bail!("{what} has no point {key:?}"),
        (Some(_), Some(_)) => bail!("{what} has more than one point {key:?}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_point_is_found_once_or_named() {
        let points = [(1, "a"), (2, "b"), (2, "c")];
        assert_eq!(super::find(&points, "grid", 1, |p| p.0).unwrap().1, "a");
        let none = super::find(&points, "the sweep", 7, |p| p.0).unwrap_err();
        assert_eq!(none.to_string(), "the sweep has no point 7");
        let two = super::find(&points, "grid", 2, |p| p.0).unwrap_err();
        assert!(two.to_string().contains("more than one point 2"));
        // Keys may borrow from the points.
        let named = [(String::from("std"), 1), (String::from("tokio"), 2)];
        assert_eq!(
            super::find(&named, "locks", "tokio", |p| p.0.as_str())
                .unwrap()
                .1,
            2
        );
    }
}
