//! The smallest `lambda_http` function: what any function pays to start.

use lambda_http::{Body, Error, Request, Response, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(|_: Request| async {
        // JSON, as the bench's Runtime API reads every answer.
        Ok::<_, Error>(Response::new(Body::from(r#"{"hello":"world"}"#)))
    }))
    .await
}
