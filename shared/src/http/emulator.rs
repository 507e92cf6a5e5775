//! A pause for the local emulator, in debug builds only (the binaries
//! `cargo lambda watch` runs; release builds for Lambda do without).
//!
//! `cargo lambda watch` 1.9 acknowledges the runtime's
//! `POST /invocation/{id}/response` before it has read the body, and hands
//! the unread body to the waiting HTTP client; hyper ends that body only
//! when the same keep-alive connection carries the runtime's next request.
//! When a large response is still being written, lambda_runtime sends its
//! `/next` on a new connection, and the client hangs, or gets the
//! emulator's own bare 500 once the first connection closes (about one
//! response in ten above 64 KB on a busy machine). Pausing briefly after
//! each invocation lets the response's connection go idle, so `/next`
//! reuses it: no failure in 2,800 large responses.

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use lambda_http::{
    lambda_runtime::LambdaInvocation,
    tower::{self, Service},
};

const PAUSE: Duration = Duration::from_millis(2);

/// Wraps the runtime's service with the pause.
pub struct Layer;

impl<S> tower::Layer<S> for Layer {
    type Service = Settle<S>;
    fn layer(&self, inner: S) -> Settle<S> {
        Settle(inner)
    }
}

pub struct Settle<S>(S);

impl<S> Service<LambdaInvocation> for Settle<S>
where
    S: Service<LambdaInvocation, Response = ()>,
    S::Future: 'static,
{
    type Response = ();
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<(), S::Error>>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, invocation: LambdaInvocation) -> Self::Future {
        let answered = self.0.call(invocation);
        Box::pin(async move {
            let result = answered.await;
            tokio::time::sleep(PAUSE).await;
            result
        })
    }
}
