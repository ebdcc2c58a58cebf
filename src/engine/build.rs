//! The one way to turn an [`EngineSpec`] into something that plays: load the evaluator,
//! wrap it in the spec's noise, give it a transposition table, and set the search plan and
//! the cube settings. The server, `hint`, `ubgi`, the duel and match players, the FIBS bot
//! and the benchmarks all build their engines here.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::spec::{net_files, CubePolicy, Depth, EngineSpec, EvaluatorKind, Precision, SpecError};
use super::{Engine, EngineSettings, GameEngine, SearchPlan};
use crate::eval::noisy::NoisyEvaluator;
use crate::eval::simple::PipSigmoid;
use crate::eval::{Evaluator, NeuralEvaluator};
use crate::search::{Searcher, TranspositionTable};

/// Why a spec could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildError {
    /// The spec itself is refused.
    Spec(SpecError),
    /// A weights file could not be loaded (the path and the reason).
    Weights(String),
    /// The kind picks plays by fixed rules and has no evaluator to search or judge cubes.
    NoEvaluator(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Spec(e) => write!(f, "{e}"),
            BuildError::Weights(e) => write!(f, "cannot load the evaluator: {e}"),
            BuildError::NoEvaluator(k) => write!(
                f,
                "{k} makes no cube decisions and cannot search (play it without the cube, or use `net`, `net:PATH` or `engine`)"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<SpecError> for BuildError {
    fn from(e: SpecError) -> BuildError {
        BuildError::Spec(e)
    }
}

/// The neural nets at `path` (the built-in ones when `None`; the mean of several files'
/// when `path` joins them with `+`), for players that evaluate plays themselves.
pub fn nets(path: Option<&Path>) -> Result<NeuralEvaluator, BuildError> {
    match path {
        None => NeuralEvaluator::default_nets().map_err(|e| BuildError::Weights(e.to_string())),
        Some(p) => {
            let load = |p: &Path| {
                NeuralEvaluator::load(p)
                    .map_err(|e| BuildError::Weights(format!("{}: {e}", p.display())))
            };
            let mut members = net_files(p).into_iter().map(load);
            let first = members.next().unwrap_or_else(|| load(p))?;
            Ok(first.with_partners(members.collect::<Result<_, _>>()?))
        }
    }
}

/// [`nets`] evaluated in `precision`.
pub fn nets_with(path: Option<&Path>, precision: Precision) -> Result<NeuralEvaluator, BuildError> {
    Ok(nets(path)?.with_precision(precision))
}

/// The evaluator `kind` names, without noise (the nets in the default precision).
pub fn evaluator(kind: &EvaluatorKind) -> Result<Arc<dyn Evaluator>, BuildError> {
    evaluator_with(kind, Precision::default())
}

/// The evaluator `kind` names, without noise, the nets evaluated in `precision`.
pub fn evaluator_with(
    kind: &EvaluatorKind,
    precision: Precision,
) -> Result<Arc<dyn Evaluator>, BuildError> {
    match kind {
        EvaluatorKind::Net(path) => Ok(Arc::new(nets_with(path.as_deref(), precision)?)),
        EvaluatorKind::PipSigmoid => Ok(Arc::new(PipSigmoid)),
        other => Err(BuildError::NoEvaluator(other.to_string())),
    }
}

/// `evaluator` with the spec's noise, if any.
pub fn with_noise(spec: &EngineSpec, evaluator: Arc<dyn Evaluator>) -> Arc<dyn Evaluator> {
    if spec.noise.is_none() {
        evaluator
    } else {
        Arc::new(NoisyEvaluator::new(evaluator, spec.noise.sigma()))
    }
}

/// The search plan of a spec: algorithm and time budget.
pub fn plan(spec: &EngineSpec) -> SearchPlan {
    SearchPlan {
        algorithm: spec.algorithm,
        time_budget: spec.budget.duration(),
        min_depth: spec.min_depth.get(),
        mcts: spec.mcts,
        filter: spec.filter,
        prune: spec.prune,
        rolls: spec.cube_lookahead.get().max(1),
    }
}

/// The engine settings of a spec: depths, how plays weigh the cube, the cube rules.
pub fn settings(spec: &EngineSpec) -> EngineSettings {
    EngineSettings {
        depth: spec.depth.get(),
        cube_depth: spec.cube_depth.get(),
        cube_lookahead: spec.cube_lookahead.get(),
        cubeful_plays: spec.cube_policy == CubePolicy::Cubeful,
        cube: spec.cube,
    }
}

/// The engine of a spec around a given searcher (the server's pool shares one searcher,
/// and so one table, between its workers and its engine).
pub fn engine_with(spec: &EngineSpec, searcher: Searcher) -> Engine {
    Engine::new(searcher, plan(spec), settings(spec))
}

/// A ready engine: evaluator (with noise), its own transposition table, plan and settings.
pub fn engine(spec: &EngineSpec) -> Result<Engine, BuildError> {
    spec.validate()?;
    let eval = with_noise(spec, evaluator_with(&spec.evaluator, spec.precision)?);
    Ok(engine_with(spec, searcher(spec, eval)))
}

/// Checks that `spec` can play the Tavli games: a net (`net`, `net:PATH`) searched by any
/// algorithm to any depth, with any time budget and table; noise is backgammon's only, and
/// the cube settings have no meaning there (the Tavli games have no cube).
pub fn check_tavli(spec: &EngineSpec) -> Result<(), BuildError> {
    spec.validate()?;
    if !matches!(spec.evaluator, EvaluatorKind::Net(_)) {
        return Err(BuildError::Spec(SpecError::BadValue {
            option: "player",
            value: spec.evaluator.to_string(),
            expected: "net or net:PATH in the Tavli games (or heuristic, random)",
        }));
    }
    if let EvaluatorKind::Net(Some(path)) = &spec.evaluator {
        if net_files(path).len() > 1 {
            return Err(BuildError::Spec(SpecError::BadValue {
                option: "player",
                value: spec.evaluator.to_string(),
                expected:
                    "one weights file in the Tavli games (ensembles, net:A+B, are backgammon's)",
            }));
        }
    }
    if !spec.noise.is_none() {
        return Err(BuildError::Spec(SpecError::BadValue {
            option: "noise",
            value: spec.noise.sigma().to_string(),
            expected: "no noise in the Tavli games",
        }));
    }
    Ok(())
}

/// The Tavli games' spec from a backgammon engine's (the server's configured engine):
/// the same search (algorithm, time budget, table, MCTS and filter settings) over each
/// game's own net, without noise and without pruning (the pruning nets are backgammon's),
/// and at most to depth 5: unpruned, depth 7 does not fit the served time budget.
pub fn tavli_spec(spec: &EngineSpec) -> EngineSpec {
    EngineSpec {
        evaluator: EvaluatorKind::Net(None),
        noise: EngineSpec::default().noise,
        prune: 0,
        depth: spec.depth.min(Depth::FIVE),
        min_depth: spec.min_depth.min(Depth::FIVE),
        ..spec.clone()
    }
}

/// The engine of a Tavli game from `spec` (checked by [`check_tavli`]): the game's net
/// (`net`: the shipped one; in Portes the backgammon nets) searched as the spec says, with
/// a table of its own.
pub fn tavli(
    spec: &EngineSpec,
    variant: crate::game::Variant,
) -> Result<GameEngine<crate::tavli::TavliPosition>, BuildError> {
    let table = Arc::new(TranspositionTable::new(spec.tt_megabytes.max(1)));
    tavli_with(spec, variant, table)
}

/// [`tavli`] over a given table (the server shares its pool's).
pub fn tavli_with(
    spec: &EngineSpec,
    variant: crate::game::Variant,
    table: Arc<TranspositionTable>,
) -> Result<GameEngine<crate::tavli::TavliPosition>, BuildError> {
    check_tavli(spec)?;
    let path = match &spec.evaluator {
        EvaluatorKind::Net(p) => p.as_ref().map(|p| p.display().to_string()),
        _ => None,
    };
    let nets = crate::eval::tavli::TavliNets::load(variant, path.as_deref())
        .map_err(BuildError::Weights)?;
    Ok(game_engine(spec, Arc::new(nets), table))
}

/// The cubeless engine of any game from `spec`, over `evaluator` and `table`.
pub fn game_engine<P: crate::game::GamePosition>(
    spec: &EngineSpec,
    evaluator: Arc<dyn Evaluator<P>>,
    table: Arc<TranspositionTable>,
) -> GameEngine<P> {
    GameEngine {
        searcher: Searcher::new(evaluator, table),
        plan: plan(spec),
        depth: spec.depth.get(),
    }
}

/// A searcher over `evaluator` with a table of the spec's size.
pub fn searcher(spec: &EngineSpec, evaluator: Arc<dyn Evaluator>) -> Searcher {
    searcher_over(
        evaluator,
        Arc::new(TranspositionTable::new(spec.tt_megabytes.max(1))),
    )
}

/// A backgammon searcher over `evaluator` and `table`, with the built-in pruning nets
/// for the searches whose settings prune (`prune=N`).
pub fn searcher_over(evaluator: Arc<dyn Evaluator>, table: Arc<TranspositionTable>) -> Searcher {
    let searcher = Searcher::new(evaluator, table);
    match pruning_nets() {
        Some(p) => searcher.with_pruner(p),
        None => searcher,
    }
}

/// The built-in pruning nets (`weights/prune.sgnet`), loaded once.
pub fn pruning_nets() -> Option<Arc<dyn Evaluator>> {
    static NETS: std::sync::OnceLock<Option<Arc<dyn Evaluator>>> = std::sync::OnceLock::new();
    NETS.get_or_init(|| {
        crate::eval::prune::PruneEvaluator::builtin()
            .ok()
            .map(|n| Arc::new(n) as Arc<dyn Evaluator>)
    })
    .clone()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn builds_what_the_spec_says() {
        let spec: EngineSpec = "pipsigmoid,depth=3,algo=star1,time=250,cubeful=on,tt=2"
            .parse()
            .unwrap();
        let e = engine(&spec).unwrap();
        assert_eq!(e.settings().depth, 3);
        assert!(e.settings().cubeful_plays);
        assert_eq!(e.plan().algorithm, crate::search::Algorithm::Star1);
        assert_eq!(
            e.plan().time_budget,
            Some(std::time::Duration::from_millis(250))
        );
        assert!(e.name().contains("pip-sigmoid"), "{}", e.name());
        let noisy = engine(&"pipsigmoid,noise=0.02".parse().unwrap()).unwrap();
        assert!(noisy.name().contains("noise=0.02"), "{}", noisy.name());
    }

    #[test]
    fn fixed_rule_players_and_missing_files_are_build_errors() {
        let e = engine(&"pubeval".parse().unwrap()).unwrap_err();
        assert!(matches!(e, BuildError::NoEvaluator(_)), "{e}");
        let e = engine(&"net:/nonexistent/x.sgnet".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("x.sgnet"), "{e}");
    }

    #[test]
    fn the_tavli_games_search_a_depth_7_spec_to_depth_5_at_most() {
        let served: EngineSpec =
            "net,depth=7,algorithm=filter,min_depth=3,filter=9:0.16/3:0.06/3:0.015,prune=6"
                .parse()
                .unwrap();
        let t = tavli_spec(&served);
        assert_eq!((t.depth, t.min_depth), (Depth::FIVE, served.min_depth));
        assert_eq!((t.prune, t.algorithm), (0, served.algorithm));
        assert!(check_tavli(&t).is_ok());
        let shallow: EngineSpec = "net,depth=3,min_depth=3".parse().unwrap();
        assert_eq!(tavli_spec(&shallow).depth, Depth::THREE);
    }
}
