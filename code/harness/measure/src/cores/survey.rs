//! The gate a survey of round trips suggests (`harness cores`).

/// A gate a survey of round trips suggests: when they fall into a close
/// group and a far one (each at least 5 % of the checks, the far one
/// starting at least 12 % above the close one's top), the geometric middle
/// of that gap. `None` when the checks show no such gap.
pub fn suggest_gate(checks: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = checks.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let least = (n / 20).max(3);
    if n < 2 * least {
        return None;
    }
    (least - 1..n - least)
        .map(|i| (v[i + 1] / v[i], i))
        .filter(|(ratio, _)| *ratio >= 1.12)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, i)| (v[i] * v[i + 1]).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_with_two_groups_suggests_a_gate_between_them() {
        let mut checks: Vec<f64> = (0..60).map(|i| 80.0 + 4.0 * i as f64).collect(); // 80–316
        checks.extend((0..20).map(|i| 370.0 + i as f64)); // 370–389
        let g = suggest_gate(&checks).unwrap();
        assert!(g > 316.0 && g < 370.0, "{g}");
        // One group only, or too few far checks to call a group: no gate.
        assert_eq!(suggest_gate(&checks[..60]), None);
        let mut lonely = checks[..60].to_vec();
        lonely.push(900.0);
        assert_eq!(suggest_gate(&lonely), None);
        assert_eq!(suggest_gate(&[]), None);
    }
}
