//! Lambda entry point of the milestones function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<milestones::Api>().await
}
