use toolmodel::Tool;

#[derive(Tool)]
union Number {
    int: i64,
    float: f64,
}

fn main() {}
