use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much measuring a run does. `smoke` exists for tests and is never
/// published; `quick` is the default; `full` is the publication profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    Smoke,
    Quick,
    Full,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Smoke, Profile::Quick, Profile::Full];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Smoke => "smoke",
            Profile::Quick => "quick",
            Profile::Full => "full",
        }
    }

    /// Picks one of three values by profile: `profile.pick(smoke, quick, full)`.
    pub fn pick<T>(self, smoke: T, quick: T, full: T) -> T {
        match self {
            Profile::Smoke => smoke,
            Profile::Quick => quick,
            Profile::Full => full,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown profile '{s}': expected one of smoke, quick, full"))
    }
}
