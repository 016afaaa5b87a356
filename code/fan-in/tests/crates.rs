//! The other crates' inboxes (flume, async-channel): the work check catches
//! a broken consumer of either, the run measures them where the plan says,
//! and the picks of What to use follow the numbers.
use std::sync::OnceLock;
use std::time::Duration;

use harness::fixtures;
use harness::measure::measure_in_memory;
use harness::results::ResultsFile;
use harness::{Block, Chapter, Profile, Progress};

use fan_in::burst::Tally;
use fan_in::experiment::{check_delivery, runtime};
use fan_in::run::{FanIn, FanInData};
use fan_in::sink::{Sink, SinkKind};
use fan_in::{async_channel_inbox, flume_inbox, Design, PER_WORKER, RECV_MANY_LIMIT};

fn smoke() -> &'static ResultsFile<FanInData> {
    static RUN: OnceLock<ResultsFile<FanInData>> = OnceLock::new();
    RUN.get_or_init(|| {
        fixtures::smoke_run::<FanIn>(|| {
            Ok(measure_in_memory::<FanIn>(Profile::Smoke, Progress::hidden("fan-in"))?.0)
        })
    })
}

/// A flume consumer that awaits a message only to learn there is work, and
/// writes what `drain` takes: the awaited message is lost from every batch.
async fn flume_losing_first(rx: flume::Receiver<u8>, mut sink: Sink) -> std::io::Result<Sink> {
    while rx.recv_async().await.is_ok() {
        let batch: Vec<u8> = rx.drain().collect();
        sink.write_all(&batch).await?;
    }
    Ok(sink)
}

/// An async-channel consumer that never clears its batch (the published
/// swap's bug): every write resends what the earlier ones sent.
async fn async_channel_never_cleared(
    rx: async_channel::Receiver<u8>,
    mut sink: Sink,
) -> std::io::Result<Sink> {
    let mut batch = Vec::new();
    while let Ok(first) = rx.recv().await {
        batch.push(first);
        let limit = batch.len() + RECV_MANY_LIMIT - 1;
        while batch.len() < limit {
            match rx.try_recv() {
                Ok(byte) => batch.push(byte),
                Err(_) => break,
            }
        }
        sink.write_all(&batch).await?;
    }
    Ok(sink)
}

/// Runs `workers` producers of the design into `consume` on a memory sink
/// and returns what the sink tallied.
fn tally_of<F>(burst: F) -> Tally
where
    F: std::future::Future<Output = std::io::Result<Sink>>,
{
    let rt = runtime().unwrap();
    rt.block_on(async {
        let mut sink = tokio::time::timeout(Duration::from_secs(30), burst)
            .await
            .expect("the burst hangs")
            .unwrap();
        sink.take_memory_tally().unwrap()
    })
}

#[test]
fn the_work_check_passes_both_inboxes_and_fails_their_broken_consumers() {
    // More messages than one batch of the async-channel consumer holds, so
    // it makes several writes and a resend is certain.
    let workers = 64;
    assert!(workers * PER_WORKER > RECV_MANY_LIMIT);
    let expected = Tally::expected(workers, PER_WORKER);
    let check = |what: &str, tally| check_delivery(what, SinkKind::Memory, tally, expected);

    for design in Design::OTHER_CRATES {
        let tally = tally_of(design.burst(workers, PER_WORKER, Sink::memory()));
        check(design.label(), tally).unwrap_or_else(|e| panic!("{e:#}"));
    }

    let broken_flume = tally_of(async {
        let (tx, rx) = flume::unbounded::<u8>();
        let consumer = tokio::spawn(flume_losing_first(rx, Sink::memory()));
        for w in 0..workers {
            tokio::spawn(flume_inbox::produce(tx.clone(), w, PER_WORKER));
        }
        drop(tx);
        consumer.await?
    });
    assert!(broken_flume.bytes < expected.bytes);
    let err = check("flume, first message lost", broken_flume).unwrap_err();
    assert!(format!("{err:#}").contains("delivered"), "{err:#}");

    let broken_async = tally_of(async {
        let (tx, rx) = async_channel::unbounded::<u8>();
        let consumer = tokio::spawn(async_channel_never_cleared(rx, Sink::memory()));
        for w in 0..workers {
            tokio::spawn(async_channel_inbox::produce(tx.clone(), w, PER_WORKER));
        }
        drop(tx);
        consumer.await?
    });
    assert!(broken_async.bytes > expected.bytes);
    assert!(check("async-channel, batch never cleared", broken_async).is_err());
}

#[test]
fn the_run_measures_the_other_crates_where_the_plan_says() {
    let d = &smoke().data;
    FanIn::check(d).unwrap();
    let plan = fan_in::plan::plan(Profile::Smoke);
    assert_eq!(d.crate_workers.as_ref(), Some(&plan.crate_workers));
    assert_eq!(d.memory_workers.as_ref(), Some(&plan.memory_workers));
    let mut want = 0;
    for kind in SinkKind::ALL {
        for design in Design::ALL {
            for &w in &d.workers {
                let point = d.get(kind, design, w);
                assert_eq!(
                    point.is_some(),
                    plan.measures(design, kind, w),
                    "{kind:?} {design:?} {w}"
                );
                want += usize::from(plan.measures(design, kind, w));
                if let Some(m) = point {
                    assert_eq!(m.bytes_per_burst, (w * d.per_worker) as u64);
                    assert!(m.bursts >= m.timing.samples as u64);
                }
            }
        }
    }
    assert_eq!(d.points.len(), want);
    // The other crates at the largest count, over both sinks (the split
    // table reads it).
    let top = *d.workers.last().unwrap();
    for design in Design::OTHER_CRATES {
        for kind in SinkKind::ALL {
            assert!(d.get(kind, design, top).is_some(), "{design:?} {kind:?}");
        }
    }

    // A point the plan does not measure, or one it does gone missing, is refused.
    let mut extra = d.clone();
    let off = d
        .workers
        .iter()
        .copied()
        .find(|w| !plan.crate_workers.contains(w))
        .unwrap();
    let mut m = d
        .get(SinkKind::Tcp, Design::MpscRecvMany, off)
        .unwrap()
        .clone();
    m.design = Design::FlumeInbox;
    extra.points.push(m);
    let err = FanIn::check(&extra).unwrap_err();
    assert!(
        format!("{err:#}").contains("not a point the run's plan measures"),
        "{err:#}"
    );
    let mut missing = d.clone();
    missing
        .points
        .retain(|m| !(m.design == Design::AsyncChannelInbox && m.workers == top));
    let err = FanIn::check(&missing).unwrap_err();
    assert!(format!("{err:#}").contains("missing"), "{err:#}");
}

/// The pick at `workers` in the summary list: what it reaches for.
fn pick_at(d: &FanInData, workers: usize) -> String {
    let book = fixtures::book::<FanIn>(d.clone());
    let blocks = fixtures::render::<FanIn>("summary-list", &book);
    let [Block::Advice(advice)] = blocks.as_slice() else {
        panic!("summary-list is not one advice block: {blocks:?}")
    };
    let measure = format!(
        "time per message at {} workers",
        harness::fmt::thousands(workers as u64)
    );
    let picks: Vec<_> = advice.iter().filter(|a| a.why.contains(&measure)).collect();
    assert_eq!(picks.len(), 1, "{advice:?}");
    picks[0].reach_for.clone()
}

#[test]
fn the_picks_follow_the_numbers() {
    let d = smoke().data.clone();
    let top = *d.workers.last().unwrap();
    let winner = pick_at(&d, top);
    let winning = Design::ALL
        .into_iter()
        .find(|x| x.label() == winner)
        .unwrap();
    assert_ne!(winning, Design::Floor, "the floor is no inbox");
    // The winner is the lowest time per burst (so per message) of the
    // inboxes at that count.
    let time = |d: &FanInData, x| {
        d.get(SinkKind::Tcp, x, top)
            .map(|m| m.timing.median.point_ns)
    };
    for x in Design::ALL.into_iter().filter(|&x| x != Design::Floor) {
        assert!(time(&d, winning).unwrap() <= time(&d, x).unwrap(), "{x:?}");
    }
    // Swap the winner's numbers with another crate's inbox: the pick moves.
    let other = Design::OTHER_CRATES
        .into_iter()
        .find(|&x| x != winning)
        .unwrap();
    let mut swapped = d.clone();
    let i = swapped
        .points
        .iter()
        .position(|m| (m.sink, m.design, m.workers) == (SinkKind::Tcp, winning, top))
        .unwrap();
    let j = swapped
        .points
        .iter()
        .position(|m| (m.sink, m.design, m.workers) == (SinkKind::Tcp, other, top))
        .unwrap();
    let (a, b) = (
        swapped.points[i].timing.clone(),
        swapped.points[j].timing.clone(),
    );
    swapped.points[i].timing = b;
    swapped.points[j].timing = a;
    assert_eq!(pick_at(&swapped, top), other.label());
}
