//! Lambda entry point of the infra function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<infra::Api>().await
}
