//! One `POST` to a checked address: the connection goes to the
//! [`SocketAddr`] that [`resolve_checked`](super::resolve_checked) vouched
//! for and nowhere else (no second lookup, no proxy, no redirect
//! followed), with the target's host name as `Host` and TLS server name.
//! The whole exchange has one time limit, and at most [`ANSWER_BYTES`] of
//! the answer are read: a receiver can neither hold the sender nor fill its
//! memory.

use std::{
    net::SocketAddr,
    sync::{Arc, OnceLock},
    time::Duration,
};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::target::Target;

/// The most of an answer's body that is read (and kept).
pub const ANSWER_BYTES: usize = 1024;

/// What a receiver answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// The first [`ANSWER_BYTES`] of the body, at most.
    pub body: Vec<u8>,
}

/// Why nothing (or no status) came back.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error("could not connect to {addr}: {reason}")]
    Connect { addr: SocketAddr, reason: String },
    #[error("TLS with {host} failed: {reason}")]
    Tls { host: String, reason: String },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the exchange failed: {0}")]
    Http(String),
}

/// Posts `body` with `headers` to `target` at `addr`, within `limit`.
pub async fn post(
    target: &Target,
    addr: SocketAddr,
    headers: &[(&str, String)],
    body: Vec<u8>,
    limit: Duration,
) -> Result<Answer, PostError> {
    tokio::time::timeout(limit, exchange(target, addr, headers, body))
        .await
        .map_err(|_| PostError::Timeout(limit))?
}

async fn exchange(
    target: &Target,
    addr: SocketAddr,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Result<Answer, PostError> {
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| PostError::Connect {
            addr,
            reason: e.to_string(),
        })?;
    let _ = tcp.set_nodelay(true);
    let request = request(target, headers, body)?;
    if target.url().scheme() == "https" {
        let name = rustls::pki_types::ServerName::try_from(target.host_str().to_string())
            .map_err(|e| tls(target, e))?;
        let stream = tokio_rustls::TlsConnector::from(tls_config())
            .connect(name, tcp)
            .await
            .map_err(|e| tls(target, e))?;
        send(stream, request).await
    } else {
        send(tcp, request).await
    }
}

fn tls(target: &Target, e: impl std::fmt::Display) -> PostError {
    PostError::Tls {
        host: target.host_str().to_string(),
        reason: e.to_string(),
    }
}

fn request(
    target: &Target,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Result<hyper::Request<Full<Bytes>>, PostError> {
    let url = target.url();
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let host = match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    let mut req = hyper::Request::post(path).header(hyper::header::HOST, host);
    for (name, value) in headers {
        req = req.header(*name, value);
    }
    req.body(Full::new(Bytes::from(body)))
        .map_err(|e| PostError::Http(e.to_string()))
}

async fn send<S>(stream: S, request: hyper::Request<Full<Bytes>>) -> Result<Answer, PostError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let http = |e: hyper::Error| PostError::Http(e.to_string());
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(http)?;
    // The connection is driven beside the request and dropped with it.
    let driver = tokio::spawn(connection);
    let answer = async {
        let response = sender.send_request(request).await.map_err(http)?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut kept = Vec::new();
        while kept.len() < ANSWER_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        let room = ANSWER_BYTES - kept.len();
                        kept.extend_from_slice(&data[..data.len().min(room)]);
                    }
                }
                // A body cut short after the status still answered.
                Some(Err(_)) | None => break,
            }
        }
        Ok(Answer { status, body: kept })
    }
    .await;
    driver.abort();
    answer
}

/// The TLS settings: the system's roots (Lambda's image carries them),
/// loaded once per process.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring serves TLS 1.2 and 1.3")
                .with_root_certificates(roots)
                .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::TcpListener,
    };

    use super::*;
    use crate::outbound::{AllowList, check_url};

    fn loopback() -> AllowList {
        AllowList::parse("loopback").unwrap()
    }

    /// A one-shot receiver on loopback that answers `reply` and hands back
    /// what it was sent.
    async fn receiver(reply: &'static [u8]) -> (SocketAddr, tokio::task::JoinHandle<Vec<u8>>) {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut got = vec![0; 64 * 1024];
            let mut n = 0;
            // Read until the body (Content-Length: 2) has arrived.
            while !String::from_utf8_lossy(&got[..n]).contains("\r\n\r\n{}") {
                let m = s.read(&mut got[n..]).await.unwrap();
                if m == 0 {
                    break;
                }
                n += m;
            }
            s.write_all(reply).await.unwrap();
            got.truncate(n);
            got
        });
        (addr, task)
    }

    #[tokio::test]
    async fn it_posts_to_the_checked_address_with_the_url_s_host() {
        let (addr, seen) = receiver(b"HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok").await;
        // The name in the URL is never looked up: the address given is
        // where the connection goes.
        let url = format!("http://hooks.example:{}/in?x=1", addr.port());
        let target = check_url(&url, &AllowList::parse("*").unwrap()).unwrap();
        let answer = post(
            &target,
            addr,
            &[("x-test", "1".into())],
            b"{}".to_vec(),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert_eq!(
            answer,
            Answer {
                status: 202,
                body: b"ok".to_vec()
            }
        );
        let sent = String::from_utf8(seen.await.unwrap()).unwrap();
        assert!(sent.starts_with("POST /in?x=1 HTTP/1.1\r\n"), "{sent}");
        assert!(
            sent.contains(&format!("host: hooks.example:{}\r\n", addr.port())),
            "{sent}"
        );
        assert!(sent.contains("x-test: 1\r\n"), "{sent}");
    }

    #[tokio::test]
    async fn only_the_first_kilobyte_of_an_answer_is_read() {
        const BIG: &[u8] = b"HTTP/1.1 500 Oops\r\ncontent-length: 5000\r\n\r\n";
        let reply: &'static [u8] = Box::leak([BIG, &[b'x'; 5000][..]].concat().into_boxed_slice());
        let (addr, _) = receiver(reply).await;
        let target = check_url(&format!("http://127.0.0.1:{}/", addr.port()), &loopback()).unwrap();
        let answer = post(&target, addr, &[], b"{}".to_vec(), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(answer.status, 500);
        assert_eq!(answer.body.len(), ANSWER_BYTES);
    }

    #[tokio::test]
    async fn a_silent_receiver_times_out_and_a_closed_port_fails_to_connect() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let target = check_url(&format!("http://127.0.0.1:{}/", addr.port()), &loopback()).unwrap();
        let e = post(&target, addr, &[], vec![], Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(matches!(e, PostError::Timeout(_)), "{e}");
        drop(listener);
        let e = post(&target, addr, &[], vec![], Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(matches!(e, PostError::Connect { .. }), "{e}");
    }
}
