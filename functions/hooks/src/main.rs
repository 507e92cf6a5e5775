//! Lambda entry point of the hooks function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<hooks::Api>().await
}
