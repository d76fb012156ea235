use toolmodel::Tool;

#[derive(Tool)]
#[tool(input = SearchArgz)]
struct Search;

fn main() {}
