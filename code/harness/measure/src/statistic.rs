//! Which statistic of a timing's samples a figure rests on, and how many
//! resamples every bootstrapped interval draws: the leaf both `timing`
//! (criterion's settings) and `stats` (the bootstraps) read.

/// Which of criterion's statistics a chapter's figures rest on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    Mean,
    Median,
}

impl Statistic {
    /// The statistic of `values` (which a median sorts in place).
    pub fn of(self, values: &mut [f64]) -> f64 {
        match self {
            Statistic::Mean => values.iter().sum::<f64>() / values.len() as f64,
            Statistic::Median => {
                values.sort_by(f64::total_cmp);
                let n = values.len();
                if n % 2 == 1 {
                    values[n / 2]
                } else {
                    (values[n / 2 - 1] + values[n / 2]) / 2.0
                }
            }
        }
    }
}

/// Resamples drawn for every bootstrapped interval.
pub const RESAMPLES: usize = 10_000;
