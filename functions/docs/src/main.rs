//! Lambda entry point of the docs function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<docs::Api>().await
}
