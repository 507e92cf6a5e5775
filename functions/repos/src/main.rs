//! Lambda entry point of the repos function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<repos::Api>().await
}
