//! The worker pool: a fixed number of search threads fed by bounded queues.
//!
//! Why: the server answers many concurrent requests, but the machine has few cores and a
//! search can take seconds. A bounded queue gives backpressure ([`Pool::try_submit`]
//! fails with [`SubmitError::Full`] instead of queueing without limit), and every worker
//! shares one transposition table, so concurrent decisions over related positions help
//! each other. Replies go through a callback, so async callers can wrap a
//! `tokio::sync::oneshot::Sender` without this module knowing about tokio.
//!
//! Fair sharing: jobs come in two lanes ([`Lane`]). Quick jobs (depth 1: one evaluation per
//! play, well under a millisecond) have a queue of their own, and a worker that becomes
//! free takes a waiting quick job before any deep one. When every worker is inside a deep
//! search, one more thread (the express worker) wakes and serves the quick lane, so a
//! cheap request never waits for an expensive one to finish: the operating system shares
//! the cores between the deep searches and the express worker instead. The express worker
//! sleeps whenever a regular worker is free, so the pool never runs more than `threads`
//! searches at once except in exactly that case.
//!
//! Idle cores help ([`PoolConfig::share_idle`]): a deep job that starts while every other
//! worker is idle and nothing waits in any queue is searched with the pool's `threads`
//! (the root split over them, [`SearchSettings::threads`]), so one client alone gets every
//! core on its decision. Under load some worker is busy or a job waits, and each decision
//! keeps one thread, so throughput is what it was; a job that arrives during a shared
//! decision is served at once by the worker that was idle (the cores are then
//! oversubscribed until the shared decision ends).

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam::channel::{
    bounded, never, select, Receiver, RecvTimeoutError, Sender, TrySendError,
};

use crate::eval::Evaluator;
use crate::game::{Dice, Position};
use crate::tavli::TavliPosition;

use super::{Cancel, SearchOutcome, SearchSettings, Searcher, TranspositionTable};

/// What a job asks.
#[derive(Debug, Clone)]
pub enum Query {
    /// Rank the plays of `dice` in `position` (side to act's view).
    Move { position: Position, dice: Dice },
    /// Value `position` before its side rolls (cube decisions, evaluations).
    Position { position: Position },
    /// Rank the plays of `dice` in a Tavli game's `position` with that game's searcher
    /// (its net, sharing the pool's table).
    Tavli {
        searcher: Searcher<TavliPosition>,
        position: TavliPosition,
        dice: Dice,
    },
}

/// The reply callback of a job.
pub type Reply = Box<dyn FnOnce(SearchOutcome) + Send>;

/// Any other CPU work for a pool thread (a decision of a [`Pool::try_run`] caller): it
/// runs once, on a worker, after the work queued before it.
pub type Task = Box<dyn FnOnce() + Send>;

/// One decision for the pool.
pub struct Job {
    pub query: Query,
    pub settings: SearchSettings,
    /// Cancelling stops the search soon; a job cancelled while queued is answered with
    /// [`SearchOutcome::Cancelled`] without searching.
    pub cancel: Cancel,
    /// An evaluator for this job only (another net, noise); the pool's otherwise.
    pub evaluator: Option<Arc<dyn Evaluator>>,
    /// Called exactly once with the outcome, on a worker thread. If the search panics the
    /// callback is dropped without being called.
    pub reply: Reply,
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Job")
            .field("query", &self.query)
            .field("settings", &self.settings)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("evaluator", &self.evaluator.as_ref().map(|e| e.name()))
            .finish()
    }
}

impl Job {
    /// A job with a fresh cancel flag and the pool's evaluator.
    pub fn new(
        query: Query,
        settings: SearchSettings,
        reply: impl FnOnce(SearchOutcome) + Send + 'static,
    ) -> Job {
        Job {
            query,
            settings,
            cancel: Cancel::new(),
            evaluator: None,
            reply: Box::new(reply),
        }
    }

    /// Uses `cancel` as the job's cancel flag.
    pub fn with_cancel(mut self, cancel: Cancel) -> Job {
        self.cancel = cancel;
        self
    }

    /// Uses `evaluator` for this job.
    pub fn with_evaluator(mut self, evaluator: Arc<dyn Evaluator>) -> Job {
        self.evaluator = Some(evaluator);
        self
    }
}

/// Why a job was not accepted; the job is handed back.
#[derive(Debug)]
pub enum SubmitError {
    /// The queue is full (backpressure): try later or answer "busy".
    Full(Box<Job>),
    /// The pool is shutting down.
    Closed(Box<Job>),
}

impl fmt::Display for SubmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubmitError::Full(_) => f.write_str("search queue is full"),
            SubmitError::Closed(_) => f.write_str("search pool is shut down"),
        }
    }
}

impl std::error::Error for SubmitError {}

/// Why [`Pool::try_run`] did not queue a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskError {
    Full,
    Closed,
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::Full => f.write_str("worker queue is full"),
            TaskError::Closed => f.write_str("worker pool is shut down"),
        }
    }
}

impl std::error::Error for TaskError {}

impl SubmitError {
    /// The job that was not accepted.
    pub fn into_job(self) -> Job {
        match self {
            SubmitError::Full(j) | SubmitError::Closed(j) => *j,
        }
    }
}

/// Which queue a job waits in (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Depth 1: answered in well under a millisecond.
    Quick,
    /// Anything deeper.
    Deep,
}

impl Lane {
    /// The lane of a search with `settings`.
    pub fn of(settings: &SearchSettings) -> Lane {
        if settings.depth <= 1 && settings.algorithm != super::Algorithm::Mcts {
            Lane::Quick
        } else {
            Lane::Deep
        }
    }
}

/// How many regular workers are inside a deep search, and whether the pool is closing:
/// the express worker's gate.
#[derive(Debug, Default)]
struct DeepGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    deep_busy: usize,
    /// Regular workers running anything (a job of either lane, or a task).
    busy: usize,
    closing: bool,
}

impl DeepGate {
    fn update(&self, f: impl FnOnce(&mut GateState)) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut st);
        self.changed.notify_all();
    }

    /// Waits until all `threads` regular workers are in deep searches; false when closing.
    fn wait_all_deep(&self, threads: usize) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while st.deep_busy < threads && !st.closing {
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        !st.closing
    }

    fn all_deep(&self, threads: usize) -> bool {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.deep_busy >= threads && !st.closing
    }

    /// Whether the calling worker is the only regular worker at work.
    fn alone(&self) -> bool {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.busy <= 1
    }
}

/// Marks a regular worker as at work, and a deep search as inside one, until dropped (a
/// panicking job or task included).
struct Busy<'a> {
    gate: &'a DeepGate,
    deep: bool,
}

impl<'a> Busy<'a> {
    fn enter(gate: &'a DeepGate, deep: bool) -> Busy<'a> {
        gate.update(|st| {
            st.busy += 1;
            st.deep_busy += usize::from(deep);
        });
        Busy { gate, deep }
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let deep = usize::from(self.deep);
        self.gate.update(|st| {
            st.busy = st.busy.saturating_sub(1);
            st.deep_busy = st.deep_busy.saturating_sub(deep);
        });
    }
}

/// Pool size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// Search threads (at least 1).
    pub threads: usize,
    /// Jobs waiting beyond those being searched (at least 1), in each lane.
    pub queue: usize,
    /// A deep job that starts while the other workers are idle and no work waits is
    /// searched on all `threads` (see the module docs).
    pub share_idle: bool,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            threads: 2,
            queue: 64,
            share_idle: true,
        }
    }
}

/// See the module docs. Dropping the pool closes the queue, lets the workers finish the
/// queued jobs, and joins them.
pub struct Pool {
    sender: Option<Sender<Job>>,
    quick: Option<Sender<Job>>,
    gate: Arc<DeepGate>,
    /// Tasks have a queue of their own so that a refused one never stands for a job.
    tasks: Option<Sender<Task>>,
    workers: Vec<JoinHandle<()>>,
    searcher: Searcher,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.workers.len())
            .field("queued", &self.queued())
            .field("searcher", &self.searcher)
            .finish()
    }
}

impl Pool {
    /// Starts `config.threads` workers searching with `evaluator` and `tt`.
    pub fn new(
        evaluator: Arc<dyn Evaluator>,
        tt: Arc<TranspositionTable>,
        config: PoolConfig,
    ) -> std::io::Result<Pool> {
        Pool::with_searcher(Searcher::new(evaluator, tt), config)
    }

    /// Starts `config.threads` workers searching with (clones of) `searcher`.
    pub fn with_searcher(searcher: Searcher, config: PoolConfig) -> std::io::Result<Pool> {
        let (tx, rx) = bounded::<Job>(config.queue.max(1));
        let (quick_tx, quick_rx) = bounded::<Job>(config.queue.max(1));
        let (task_tx, task_rx) = bounded::<Task>(config.queue.max(1));
        let gate = Arc::new(DeepGate::default());
        let threads = config.threads.max(1);
        let mut pool = Pool {
            sender: Some(tx),
            quick: Some(quick_tx),
            gate: gate.clone(),
            tasks: Some(task_tx),
            workers: Vec::new(),
            searcher: searcher.clone(),
        };
        // On a failed spawn, dropping `pool` closes the queues and joins those started.
        for i in 0..threads {
            let queues = Queues {
                deep: rx.clone(),
                quick: quick_rx.clone(),
                tasks: task_rx.clone(),
            };
            let (s, g) = (searcher.clone(), gate.clone());
            let share = config.share_idle.then_some(threads).filter(|&t| t > 1);
            let handle = std::thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || worker(queues, s, &g, share))?;
            pool.workers.push(handle);
        }
        let (s, g) = (searcher, gate);
        let handle = std::thread::Builder::new()
            .name("search-express".into())
            .spawn(move || express_worker(quick_rx, s, &g, threads))?;
        pool.workers.push(handle);
        Ok(pool)
    }

    fn lane_sender(&self, job: &Job) -> &Option<Sender<Job>> {
        match Lane::of(&job.settings) {
            Lane::Quick => &self.quick,
            Lane::Deep => &self.sender,
        }
    }

    /// Queues `job` in its lane without waiting; fails at once when that lane's queue is
    /// full or closed.
    pub fn try_submit(&self, job: Job) -> Result<(), SubmitError> {
        match self.lane_sender(&job) {
            None => Err(SubmitError::Closed(Box::new(job))),
            Some(tx) => tx.try_send(job).map_err(|e| match e {
                TrySendError::Full(j) => SubmitError::Full(Box::new(j)),
                TrySendError::Disconnected(j) => SubmitError::Closed(Box::new(j)),
            }),
        }
    }

    /// Queues `job`, waiting for a free slot when the queue is full.
    pub fn submit(&self, job: Job) -> Result<(), SubmitError> {
        match self.lane_sender(&job) {
            None => Err(SubmitError::Closed(Box::new(job))),
            Some(tx) => tx
                .send(job)
                .map_err(|e| SubmitError::Closed(Box::new(e.into_inner()))),
        }
    }

    /// Queues `task` for a worker without waiting, so that an async caller hands its CPU
    /// work to the pool instead of running it on the runtime. Fails when the task queue is
    /// full or closed.
    pub fn try_run(&self, task: impl FnOnce() + Send + 'static) -> Result<(), TaskError> {
        match &self.tasks {
            None => Err(TaskError::Closed),
            Some(tx) => tx.try_send(Box::new(task)).map_err(|e| match e {
                TrySendError::Full(_) => TaskError::Full,
                TrySendError::Disconnected(_) => TaskError::Closed,
            }),
        }
    }

    /// Submits and waits for the outcome (None if the search panicked or the pool closed).
    pub fn run(&self, query: Query, settings: SearchSettings) -> Option<SearchOutcome> {
        let (tx, rx) = bounded(1);
        let job = Job::new(query, settings, move |o| {
            // The receiver only goes away if this caller stopped waiting.
            let _ = tx.send(o);
        });
        self.submit(job).ok()?;
        rx.recv().ok()
    }

    /// Number of regular worker threads (the express worker not counted).
    pub fn threads(&self) -> usize {
        self.workers.len().saturating_sub(1)
    }

    /// Jobs and tasks waiting for a worker.
    pub fn queued(&self) -> usize {
        self.sender.as_ref().map_or(0, |s| s.len())
            + self.quick.as_ref().map_or(0, |s| s.len())
            + self.tasks.as_ref().map_or(0, |s| s.len())
    }

    /// The searcher the workers share (its table included).
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the channels ends each worker's receive loop once the queues are empty.
        self.sender = None;
        self.quick = None;
        self.tasks = None;
        self.gate.update(|st| st.closing = true);
        for w in self.workers.drain(..) {
            // A worker that panicked outside a search has nothing left to clean up.
            let _ = w.join();
        }
    }
}

/// The receiving ends a regular worker serves.
struct Queues {
    deep: Receiver<Job>,
    quick: Receiver<Job>,
    tasks: Receiver<Task>,
}

/// A regular worker; `share` is the pool's thread count where idle cores help a lone
/// deep job.
fn worker(queues: Queues, searcher: Searcher, gate: &DeepGate, share: Option<usize>) {
    let Queues { deep, quick, tasks } = queues;
    // A closed queue is always ready (with an error), so it is swapped for one that never
    // is; the worker ends when all are closed and drained.
    let (no_jobs, no_tasks) = (never::<Job>(), never::<Task>());
    let (mut jobs_open, mut quick_open, mut tasks_open) = (true, true, true);
    while jobs_open || quick_open || tasks_open {
        // A waiting quick job goes first.
        if quick_open {
            if let Ok(job) = quick.try_recv() {
                let _busy = Busy::enter(gate, false);
                run_job(job, &searcher);
                continue;
            }
        }
        let j = if jobs_open { &deep } else { &no_jobs };
        let q = if quick_open { &quick } else { &no_jobs };
        let t = if tasks_open { &tasks } else { &no_tasks };
        select! {
            recv(q) -> msg => match msg {
                Ok(job) => {
                    let _busy = Busy::enter(gate, false);
                    run_job(job, &searcher);
                }
                Err(_) => quick_open = false,
            },
            recv(j) -> msg => match msg {
                Ok(mut job) => {
                    let _busy = Busy::enter(gate, true);
                    if let Some(threads) = share {
                        let idle = gate.alone()
                            && deep.is_empty()
                            && quick.is_empty()
                            && tasks.is_empty();
                        if idle && job.settings.threads <= 1 {
                            job.settings.threads = threads;
                        }
                    }
                    run_job(job, &searcher);
                }
                Err(_) => jobs_open = false,
            },
            recv(t) -> msg => match msg {
                // A panicking task loses only its own result (its reply channel drops).
                Ok(task) => {
                    let _busy = Busy::enter(gate, false);
                    let _ = catch_unwind(AssertUnwindSafe(task));
                }
                Err(_) => tasks_open = false,
            },
        }
    }
}

/// Serves the quick lane while every regular worker is inside a deep search.
fn express_worker(quick: Receiver<Job>, searcher: Searcher, gate: &DeepGate, threads: usize) {
    // Re-checked this often while waiting for a quick job, so the express worker goes back
    // to sleep soon after a regular worker is free again.
    const RECHECK: Duration = Duration::from_millis(20);
    while gate.wait_all_deep(threads) {
        while gate.all_deep(threads) {
            match quick.recv_timeout(RECHECK) {
                Ok(job) => run_job(job, &searcher),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}

fn run_job(job: Job, searcher: &Searcher) {
    let Job {
        query,
        settings,
        cancel,
        evaluator,
        reply,
    } = job;
    if cancel.is_cancelled() {
        reply(SearchOutcome::Cancelled);
        return;
    }
    let s = match evaluator {
        Some(e) => searcher.with_evaluator(e),
        None => searcher.clone(),
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        run_query(&s, &query, &settings, &cancel)
    }));
    if let Ok(o) = outcome {
        reply(o);
    }
}

/// Answers one query synchronously.
pub fn run_query(
    searcher: &Searcher,
    query: &Query,
    settings: &SearchSettings,
    cancel: &Cancel,
) -> SearchOutcome {
    match query {
        Query::Move { position, dice } => {
            SearchOutcome::Move(searcher.choose(position, *dice, settings, cancel))
        }
        Query::Position { position } => {
            SearchOutcome::Position(searcher.evaluate_position(position, settings, cancel))
        }
        Query::Tavli {
            searcher,
            position,
            dice,
        } => SearchOutcome::Tavli(searcher.choose(position, *dice, settings, cancel)),
    }
}
