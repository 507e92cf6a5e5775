//! Lambda entry point of the app-crud function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::run::<app_crud::Api>().await
}
