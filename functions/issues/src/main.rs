//! Lambda entry point of the issues function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<issues::Api>().await
}
