use std::sync::{Arc, Mutex};
use toolmodel::Tool;

// A handler with state and no `input = ...`: the struct is taken for its own arguments. The
// error says so, and what to write instead.
/// Counts.
#[derive(Tool)]
struct Count {
    store: Arc<Mutex<u64>>,
}

fn main() {}
