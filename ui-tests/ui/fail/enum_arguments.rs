use toolmodel::Tool;

#[derive(Tool)]
enum Search {
    ByName { name: String },
    ById { id: u64 },
}

fn main() {}
