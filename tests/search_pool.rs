#![allow(clippy::unwrap_used)]
//! The worker pool: answers, backpressure, cancellation, time budgets, shutdown.

use std::sync::Arc;
use std::time::Duration;

use crossbeam::channel::bounded;
use stargammon::eval::simple::PipSigmoid;
use stargammon::eval::Evaluator;
use stargammon::game::{Dice, Position};
use stargammon::search::{
    Algorithm, Cancel, Job, Pool, PoolConfig, Query, SearchOutcome, SearchSettings, Searcher,
    SubmitError, TranspositionTable,
};

fn pool(threads: usize, queue: usize) -> Pool {
    let e: Arc<dyn Evaluator> = Arc::new(PipSigmoid);
    Pool::new(
        e,
        Arc::new(TranspositionTable::new(8)),
        PoolConfig {
            threads,
            queue,
            share_idle: false,
        },
    )
    .unwrap()
}

#[test]
fn answers_move_and_position_queries_like_the_searcher() {
    let p = pool(2, 4);
    let dice = Dice::new(3, 1).unwrap();
    let settings = SearchSettings::new(3, Algorithm::Star2);
    let Some(SearchOutcome::Move(m)) = p.run(
        Query::Move {
            position: Position::OPENING,
            dice,
        },
        settings.clone(),
    ) else {
        panic!("expected a move answer");
    };
    let direct = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(1))).choose(
        &Position::OPENING,
        dice,
        &settings,
        &Cancel::new(),
    );
    assert_eq!(m.depth, 3);
    assert_eq!(m.plays.len(), direct.plays.len());
    assert_eq!(m.best().unwrap().index, direct.best().unwrap().index);
    assert_eq!(m.best().unwrap().value, direct.best().unwrap().value);

    let Some(SearchOutcome::Position(e)) = p.run(
        Query::Position {
            position: Position::OPENING,
        },
        settings,
    ) else {
        panic!("expected a position answer");
    };
    assert_eq!(e.depth, 3);
    // The opening is symmetric: close to even whoever is on roll.
    assert!(e.equity.abs() < 0.3, "{}", e.equity);
    let w: f32 = e.probs.0[0];
    assert!(w > 0.4 && w < 0.65, "{w}");
    // The probabilities follow the search's replies, so their equity is the value's.
    assert!((e.probs.equity() as f64 - e.equity).abs() < 0.01);
}

#[test]
fn a_full_queue_is_reported_and_queued_jobs_can_be_cancelled() {
    let p = pool(1, 1);
    let (release_tx, release_rx) = bounded::<()>(0);
    let (started_tx, started_rx) = bounded::<()>(1);
    let q = Query::Move {
        position: Position::OPENING,
        dice: Dice::new(6, 5).unwrap(),
    };
    let s1 = SearchSettings::new(1, Algorithm::Star2);
    // The first job's reply holds the only worker until released.
    p.submit(Job::new(q.clone(), s1.clone(), move |_| {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    }))
    .unwrap();
    started_rx.recv().unwrap();
    let cancel = Cancel::new();
    let (out_tx, out_rx) = bounded(1);
    p.try_submit(
        Job::new(q.clone(), s1.clone(), move |o| out_tx.send(o).unwrap())
            .with_cancel(cancel.clone()),
    )
    .unwrap();
    match p.try_submit(Job::new(q, s1, |_| {})) {
        Err(SubmitError::Full(_)) => {}
        other => panic!("expected Full, got {other:?}"),
    }
    cancel.cancel();
    release_tx.send(()).unwrap();
    assert_eq!(out_rx.recv().unwrap(), SearchOutcome::Cancelled);
    drop(p); // joins the worker
}

#[test]
fn a_time_budget_keeps_the_last_completed_iteration() {
    let searcher = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(8)));
    let mut s = SearchSettings::new(9, Algorithm::Expectimax);
    s.time_budget = Some(Duration::from_millis(150));
    let pos = Position::OPENING;
    let d = searcher.choose(&pos, Dice::new(4, 2).unwrap(), &s, &Cancel::new());
    assert!(d.stopped);
    assert!(d.depth < 9 && d.depth >= 1);
    assert!(d.elapsed < Duration::from_millis(1500), "{:?}", d.elapsed);
    let n = stargammon::game::legal_plays(&pos, Dice::new(4, 2).unwrap()).len();
    assert_eq!(d.plays.len(), n);
    assert!(d.plays.iter().filter(|p| p.depth == d.depth).count() >= 1);

    // A cancelled flag stops deepening; depth 1 still answers.
    let cancel = Cancel::new();
    cancel.cancel();
    let d = searcher.choose(&pos, Dice::new(4, 2).unwrap(), &s, &cancel);
    assert_eq!(d.depth, 1);
    assert!(d.stopped);
}

#[test]
fn iterations_up_to_the_minimum_depth_complete_whatever_the_budget() {
    let searcher = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(8)));
    let pos = Position::OPENING;
    let dice = Dice::new(4, 2).unwrap();
    for threads in [1, 2] {
        // A budget far too short for depth 3 leaves depth 1 ...
        let mut s = SearchSettings::new(5, Algorithm::Star2);
        s.threads = threads;
        s.time_budget = Some(Duration::from_nanos(1));
        let d = searcher.choose(&pos, dice, &s, &Cancel::new());
        assert_eq!((d.depth, d.stopped), (1, true));
        let e = searcher.evaluate_position(&pos, &s, &Cancel::new());
        assert_eq!(e.depth, 1);
        // ... unless depth 3 is guaranteed: it completes, and depth 5 is not tried.
        s.min_depth = 3;
        let d = searcher.choose(&pos, dice, &s, &Cancel::new());
        assert_eq!((d.depth, d.stopped), (3, true));
        assert!(d.plays.iter().any(|p| p.depth == 3));
        let e = searcher.evaluate_position(&pos, &s, &Cancel::new());
        assert_eq!(e.depth, 3);
        // Cancelling still stops a guaranteed iteration.
        let cancel = Cancel::new();
        cancel.cancel();
        assert_eq!(searcher.choose(&pos, dice, &s, &cancel).depth, 1);
    }
}

#[test]
fn two_threads_find_the_same_play_and_value() {
    let one = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(8)));
    let two = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(8)));
    for (pos, dice) in stargammon::search::positions::self_play_positions(&PipSigmoid, 3, 10, 4) {
        let s1 = SearchSettings::new(3, Algorithm::Star2);
        let mut s2 = s1.clone();
        s2.threads = 2;
        let a = one.choose(&pos, dice, &s1, &Cancel::new());
        let b = two.choose(&pos, dice, &s2, &Cancel::new());
        assert_eq!(
            a.best().map(|p| (p.index, p.value)),
            b.best().map(|p| (p.index, p.value))
        );
    }
}

#[test]
fn a_lone_deep_decision_gets_every_worker_and_a_busy_pool_one_each() {
    let e: Arc<dyn Evaluator> = Arc::new(PipSigmoid);
    let shared = Pool::new(
        e,
        Arc::new(TranspositionTable::new(8)),
        PoolConfig {
            threads: 2,
            queue: 4,
            share_idle: true,
        },
    )
    .unwrap();
    let plain = pool(2, 4);
    let ask = |p: &Pool, depth: u8| {
        let query = Query::Move {
            position: Position::OPENING,
            dice: Dice::new(4, 2).unwrap(),
        };
        match p.run(query, SearchSettings::new(depth, Algorithm::Star2)) {
            Some(SearchOutcome::Move(m)) => m,
            other => panic!("expected a move answer, got {other:?}"),
        }
    };
    // Alone: both workers' cores, the same answer as one thread.
    let lone = ask(&shared, 3);
    assert_eq!(lone.threads, 2);
    let one = ask(&plain, 3);
    assert_eq!(one.threads, 1);
    assert_eq!(
        lone.best().map(|p| (p.index, p.value)),
        one.best().map(|p| (p.index, p.value))
    );
    // A quick (depth-1) decision is never split.
    assert_eq!(ask(&shared, 1).threads, 1);
    // With the other worker busy, a decision keeps one thread.
    let (started_tx, started_rx) = bounded::<()>(1);
    let (release_tx, release_rx) = bounded::<()>(1);
    shared
        .try_run(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        })
        .unwrap();
    started_rx.recv().unwrap();
    let busy = ask(&shared, 3);
    assert_eq!(busy.threads, 1);
    release_tx.send(()).unwrap();
    assert_eq!(
        busy.best().map(|p| (p.index, p.value)),
        one.best().map(|p| (p.index, p.value))
    );
}
