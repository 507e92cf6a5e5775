//! A webhook receiver on loopback for tests: it records every request
//! (headers, body, when) and answers with the statuses it is told to, in
//! turn (200 once they run out). HTTP/1.1 with `Content-Length` bodies,
//! which is what the sender writes.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::Notify,
};

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map_or("", String::as_str)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

#[derive(Default)]
struct State {
    got: Mutex<Vec<Received>>,
    statuses: Mutex<VecDeque<u16>>,
    arrived: Notify,
}

pub struct Receiver {
    /// `http://127.0.0.1:PORT/hook`
    pub url: String,
    state: Arc<State>,
}

impl Receiver {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, shared.clone()));
            }
        });
        Self { url, state }
    }

    /// The statuses of the next answers, in order.
    pub fn answer_with(&self, statuses: &[u16]) {
        self.state.statuses.lock().unwrap().extend(statuses);
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.state.got.lock().unwrap().clone()
    }

    /// Waits until `n` requests have arrived (at most `limit`), then
    /// returns all of them; panics with what did arrive otherwise.
    pub async fn wait_for(&self, n: usize, limit: Duration) -> Vec<Received> {
        let until = Instant::now() + limit;
        loop {
            let arrived = self.state.arrived.notified();
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, arrived).await.is_err() {
                let seen: Vec<String> = got
                    .iter()
                    .map(|r| format!("{} {}", r.header("x-gitea-event-type"), r.json()["action"]))
                    .collect();
                panic!("{} of {n} deliveries within {limit:?}: {seen:?}", got.len());
            }
        }
    }
}

async fn serve(mut stream: TcpStream, state: Arc<State>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (head_end, length) = loop {
        let Ok(n) = stream.read(&mut chunk).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let status = state.statuses.lock().unwrap().pop_front().unwrap_or(200);
    state.got.lock().unwrap().push(Received {
        path,
        headers,
        body: buf[head_end..head_end + length].to_vec(),
        at: Instant::now(),
    });
    state.arrived.notify_waiters();
    let answer = format!("HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
    let _ = stream.write_all(answer.as_bytes()).await;
}
