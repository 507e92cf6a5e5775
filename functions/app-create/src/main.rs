//! Lambda entry point of the app-create function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<app_create::Api>().await
}
