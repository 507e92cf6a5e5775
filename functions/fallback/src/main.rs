//! Lambda entry point of the fallback function (API Gateway's `$default`
//! route).

mod table;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::fallback::run(env!("CARGO_PKG_NAME"), table::ROUTES).await
}
