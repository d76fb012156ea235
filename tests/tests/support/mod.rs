//! What the integration tests share beyond the `toolmodel_tests` library (the data of
//! `../shared`) and `toolmodel-test-support` (the servers the tests of several packages start).

pub mod client;

/// The quickstart example (`examples/quickstart.rs`, also the `example-quickstart` program):
/// its tools, called in this process.
#[path = "../../../examples/quickstart.rs"]
pub mod quickstart;
