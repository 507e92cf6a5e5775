//! Lambda entry point of the accounts function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<accounts::Api>().await
}
