//! Lambda entry point of the issue-search function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<issue_search::Api>().await
}
