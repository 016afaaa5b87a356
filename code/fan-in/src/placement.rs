//! Where a burst's threads run. Four threads take part in every burst: the
//! driver that awaits it (`Runtime::block_on`), the runtime's workers, and
//! the loopback sink's reader. On a virtual machine whose idle cores halt,
//! a wake-up that crosses to another core can cost far more than the work
//! it wakes, so a small burst's time depends on where the scheduler happened
//! to put those threads, and it flips between modes from one stretch of the
//! run to the next. `Placement::Pinned` fixes the placement, so the run
//! compares designs rather than placements; the chapter also measures a few
//! points `Free`, to show what the scheduler's choices cost.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Runtime worker `i` on the `i`-th CPU the process may use (modulo
    /// their number); the driver and the sink's reader on the first.
    Pinned,
    /// Wherever the OS scheduler puts each thread, moment to moment.
    Free,
}

impl Placement {
    pub fn label(self) -> &'static str {
        match self {
            Placement::Pinned => "pinned",
            Placement::Free => "free",
        }
    }

    /// What the placement means, for the page.
    pub fn describe(self) -> &'static str {
        match self {
            Placement::Pinned => {
                "pinned: runtime worker i on the i-th CPU the process may use, \
                 the driver awaiting the burst and the sink's reader on the first"
            }
            Placement::Free => "free: wherever the OS scheduler puts each thread",
        }
    }
}

/// The CPUs a pinned rig assigns, taken from the calling thread's affinity
/// when the rig is built (a container's cpuset is respected).
#[derive(Clone, Debug)]
pub struct Pins {
    allowed: Vec<usize>,
    /// Runtime worker `i` takes the `(i + offset)`-th allowed CPU.
    offset: usize,
    /// Runtime workers the OS refused to pin (see `worker_hook`).
    refused: Arc<AtomicUsize>,
}

impl Pins {
    /// `None` where this OS offers no affinity call, or the call failed: the
    /// run then measures with free placement and records that it did.
    pub fn for_this_thread() -> Option<Pins> {
        let allowed = current_cpus()?;
        (!allowed.is_empty()).then(|| Pins::over(allowed))
    }

    fn over(allowed: Vec<usize>) -> Pins {
        Pins {
            allowed,
            offset: 0,
            refused: Arc::default(),
        }
    }

    /// The same CPUs with runtime worker `i` on the `(i + offset)`-th, so
    /// the first `offset` CPUs keep the driver without a worker (where
    /// there are that many more).
    pub fn workers_from(self, offset: usize) -> Pins {
        let offset = if self.allowed.len() > offset {
            offset
        } else {
            0
        };
        Pins { offset, ..self }
    }

    /// Fails if a runtime worker could not be pinned, so that a run never
    /// records as pinned a worker that ran free.
    pub fn check(&self) -> anyhow::Result<()> {
        let refused = self.refused.load(Ordering::Relaxed);
        anyhow::ensure!(
            refused == 0,
            "{refused} runtime worker(s) could not be pinned to their CPUs {:?}",
            self.allowed
        );
        Ok(())
    }

    // ANCHOR: pins
    /// The CPU of the driver and of the sink's reader.
    pub fn first(&self) -> usize {
        self.allowed[0]
    }

    /// The last CPU the process may use.
    pub fn last(&self) -> usize {
        self.allowed[self.allowed.len() - 1]
    }

    /// The CPU of runtime worker `i`.
    pub fn worker(&self, i: usize) -> usize {
        self.allowed[(i + self.offset) % self.allowed.len()]
    }

    /// A hook for `Builder::on_thread_start`: pins the first `workers`
    /// threads the runtime starts (its workers, started when it is built)
    /// one CPU each. Threads it starts later (the blocking pool) inherit the
    /// affinity of the thread that starts them.
    pub fn worker_hook(&self, workers: usize) -> impl Fn() + Send + Sync + 'static {
        let pins = self.clone();
        let started = Arc::new(AtomicUsize::new(0));
        move || {
            let i = started.fetch_add(1, Ordering::Relaxed);
            if i < workers && !pin_current(&[pins.worker(i)]) {
                pins.refused.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    // ANCHOR_END: pins
}

/// Restricts the calling thread to `cpus`. Returns whether the OS agreed.
pub fn pin_current(cpus: &[usize]) -> bool {
    sys::set(cpus)
}

/// The CPUs the calling thread may run on, in ascending order.
pub fn current_cpus() -> Option<Vec<usize>> {
    sys::get()
}

#[cfg(target_os = "linux")]
mod sys {
    use libc::{cpu_set_t, sched_getaffinity, sched_setaffinity, CPU_ISSET, CPU_SET, CPU_SETSIZE};

    /// `pid` 0 is the calling thread.
    pub fn get() -> Option<Vec<usize>> {
        // SAFETY: an all-zero `cpu_set_t` is the empty set; the kernel writes
        // at most `size_of::<cpu_set_t>()` bytes into it.
        unsafe {
            let mut set: cpu_set_t = std::mem::zeroed();
            if sched_getaffinity(0, size_of::<cpu_set_t>(), &mut set) != 0 {
                return None;
            }
            Some(
                (0..CPU_SETSIZE as usize)
                    .filter(|&cpu| CPU_ISSET(cpu, &set))
                    .collect(),
            )
        }
    }

    pub fn set(cpus: &[usize]) -> bool {
        if cpus.iter().any(|&cpu| cpu >= CPU_SETSIZE as usize) {
            return false;
        }
        // SAFETY: as in `get`; the kernel reads the set.
        unsafe {
            let mut set: cpu_set_t = std::mem::zeroed();
            for &cpu in cpus {
                CPU_SET(cpu, &mut set);
            }
            sched_setaffinity(0, size_of::<cpu_set_t>(), &set) == 0
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub fn get() -> Option<Vec<usize>> {
        None
    }

    pub fn set(_: &[usize]) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_thread_pinned_to_one_cpu_reads_back_that_cpu() {
        let allowed = current_cpus().expect("affinity readable on Linux");
        assert!(!allowed.is_empty());
        let last = *allowed.last().unwrap();
        let seen = std::thread::spawn(move || {
            assert!(pin_current(&[last]));
            current_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(seen, Some(vec![last]));
        // The spawning thread kept its own mask.
        assert_eq!(current_cpus(), Some(allowed));
    }

    #[test]
    fn workers_take_the_allowed_cpus_in_turn() {
        let pins = Pins::over(vec![2, 5, 7]);
        let cpus: Vec<usize> = (0..5).map(|i| pins.worker(i)).collect();
        assert_eq!(cpus, [2, 5, 7, 2, 5]);
        assert_eq!(pins.first(), 2);
    }

    #[test]
    fn a_cpu_beyond_the_mask_is_refused_not_wrapped() {
        assert!(!std::thread::spawn(|| pin_current(&[4096])).join().unwrap());
    }

    #[test]
    fn a_worker_the_os_refused_fails_the_check() {
        // CPU 4096 is beyond any affinity mask, so the hook's pin fails.
        let pins = Pins::over(vec![4096]);
        pins.check().expect("nothing refused yet");
        let hook = pins.worker_hook(1);
        std::thread::spawn(hook).join().unwrap();
        let err = pins.check().expect_err("a refused worker");
        assert!(
            format!("{err:#}").contains("1 runtime worker(s)"),
            "{err:#}"
        );
    }
}
