//! Lambda entry point of the stream consumer (the table's DynamoDB stream,
//! through an event source mapping; locally, tools/stream-pump), and the
//! webhook sweeper on a schedule.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::consumer::run(&stream::DYNAMODB, stream::handlers, stream::scheduled).await
}
