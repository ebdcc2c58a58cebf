//! The worker pool: a fixed number of search threads fed by a bounded queue.
//!
//! Why: the server answers many concurrent requests, but the machine has few cores and a
//! search can take seconds. A bounded queue gives backpressure ([`Pool::try_submit`]
//! fails with [`SubmitError::Full`] instead of queueing without limit), and every worker
//! shares one transposition table, so concurrent decisions over related positions help
//! each other. Replies go through a callback, so async callers can wrap a
//! `tokio::sync::oneshot::Sender` without this module knowing about tokio.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam::channel::{bounded, never, select, Receiver, Sender, TrySendError};

use crate::eval::Evaluator;
use crate::game::{Dice, Position};

use super::{Cancel, SearchOutcome, SearchSettings, Searcher, TranspositionTable};

/// What a job asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// Rank the plays of `dice` in `position` (side to act's view).
    Move { position: Position, dice: Dice },
    /// Value `position` before its side rolls (cube decisions, evaluations).
    Position { position: Position },
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

/// Pool size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// Search threads (at least 1).
    pub threads: usize,
    /// Jobs waiting beyond those being searched (at least 1).
    pub queue: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            threads: 2,
            queue: 64,
        }
    }
}

/// See the module docs. Dropping the pool closes the queue, lets the workers finish the
/// queued jobs, and joins them.
pub struct Pool {
    sender: Option<Sender<Job>>,
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
        let (task_tx, task_rx) = bounded::<Task>(config.queue.max(1));
        let mut workers = Vec::new();
        for i in 0..config.threads.max(1) {
            let rx = rx.clone();
            let task_rx = task_rx.clone();
            let s = searcher.clone();
            let handle = std::thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || worker(rx, task_rx, s))?;
            workers.push(handle);
        }
        Ok(Pool {
            sender: Some(tx),
            tasks: Some(task_tx),
            workers,
            searcher,
        })
    }

    /// Queues `job` without waiting; fails at once when the queue is full or closed.
    pub fn try_submit(&self, job: Job) -> Result<(), SubmitError> {
        match &self.sender {
            None => Err(SubmitError::Closed(Box::new(job))),
            Some(tx) => tx.try_send(job).map_err(|e| match e {
                TrySendError::Full(j) => SubmitError::Full(Box::new(j)),
                TrySendError::Disconnected(j) => SubmitError::Closed(Box::new(j)),
            }),
        }
    }

    /// Queues `job`, waiting for a free slot when the queue is full.
    pub fn submit(&self, job: Job) -> Result<(), SubmitError> {
        match &self.sender {
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

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Jobs and tasks waiting for a worker.
    pub fn queued(&self) -> usize {
        self.sender.as_ref().map_or(0, |s| s.len()) + self.tasks.as_ref().map_or(0, |s| s.len())
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
        self.tasks = None;
        for w in self.workers.drain(..) {
            // A worker that panicked outside a search has nothing left to clean up.
            let _ = w.join();
        }
    }
}

fn worker(jobs: Receiver<Job>, tasks: Receiver<Task>, searcher: Searcher) {
    // A closed queue is always ready (with an error), so it is swapped for one that never
    // is; the worker ends when both are closed and drained.
    let (no_jobs, no_tasks) = (never::<Job>(), never::<Task>());
    let (mut jobs_open, mut tasks_open) = (true, true);
    while jobs_open || tasks_open {
        let j = if jobs_open { &jobs } else { &no_jobs };
        let t = if tasks_open { &tasks } else { &no_tasks };
        select! {
            recv(j) -> msg => match msg {
                Ok(job) => run_job(job, &searcher),
                Err(_) => jobs_open = false,
            },
            recv(t) -> msg => match msg {
                // A panicking task loses only its own result (its reply channel drops).
                Ok(task) => {
                    let _ = catch_unwind(AssertUnwindSafe(task));
                }
                Err(_) => tasks_open = false,
            },
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
        Some(e) => Searcher::new(e, searcher.table().clone()),
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
    match *query {
        Query::Move { position, dice } => {
            SearchOutcome::Move(searcher.choose(&position, dice, settings, cancel))
        }
        Query::Position { position } => {
            SearchOutcome::Position(searcher.evaluate_position(&position, settings, cancel))
        }
    }
}
