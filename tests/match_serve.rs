//! The match runner against `stargammon serve`, started in-process on a loopback port:
//! the server reads the referee's boards (gnubg's external-interface convention) and its
//! answers are read back, with zero forfeits. The server and the in-process `engine` seat
//! are the same engine with the same settings, so with mirrored dice every pair of games
//! cancels exactly: any disagreement between the socket path and the in-process path
//! (board reading, reply writing, reply parsing) shows up as a non-zero result.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use stargammon::arena::referee::{run_series, InProcessFactory, SeriesConfig, SeriesKind};
use stargammon::arena::socket::{gnubg_board_request, gnubg_move_reply, TcpFactory};
use stargammon::config::{BoardConvention, Config};

/// Runs `stargammon serve` with `config` on its own runtime; stops when dropped.
struct Serve {
    addr: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Serve {
    fn start(mut config: Config) -> Serve {
        config.engine.threads = 1;
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx
                    .send(listener.local_addr().unwrap().to_string())
                    .unwrap();
                stargammon::server::run(listener, config, async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
            });
        });
        let addr = addr_rx.recv_timeout(Duration::from_secs(60)).unwrap();
        Serve {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    fn factory(&self, parallel: usize) -> TcpFactory {
        TcpFactory {
            spec: format!("serve:tcp://{}", self.addr),
            addrs: vec![self.addr.clone(); parallel],
            timeout: Duration::from_secs(30),
            encode: gnubg_board_request,
            parse_move: gnubg_move_reply,
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn series(kind: SeriesKind, cube: bool, parallel: usize) -> SeriesConfig {
    SeriesConfig {
        kind,
        cube,
        seed: 12,
        parallel,
    }
}

#[test]
fn serve_and_the_in_process_engine_agree_through_the_referee() {
    let mut config = Config::default();
    config.server.board_convention = BoardConvention::Gnubg;
    let serve = Serve::start(config);
    let remote = serve.factory(2);
    let local = InProcessFactory::parse("engine", true).unwrap();

    // Cubeless money games over two connections: mirrored pairs cancel exactly.
    let s = run_series(
        &series(SeriesKind::Money { games: 20 }, false, 2),
        &remote,
        &local,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.games, 20);
    assert_eq!(s.tally.ppg(), 0.0, "{:?}", s.tally);

    // Money games with the cube: doubles, takes and drops through the socket.
    let s = run_series(
        &series(SeriesKind::Money { games: 20 }, true, 2),
        &remote,
        &local,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.ppg(), 0.0, "{:?}", s.tally);

    // Matches with the cube against a different player: zero forfeits.
    let pubeval_cube = InProcessFactory::parse("net", true).unwrap();
    let s = run_series(
        &series(
            SeriesKind::Matches {
                length: 5,
                matches: 2,
            },
            true,
            2,
        ),
        &remote,
        &pubeval_cube,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.matches, 2);
}
