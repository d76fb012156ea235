//! Twelve real tools of github-mcp-server, re-authored with `#[derive(Tool)]`.
//!
//! Run it with `cargo run --example github_tools`. It prints the `tools/list` result of the
//! derived tools, then, when the shared corpus is there (`$TOOLMODEL_SHARED`, else
//! `../shared` beside the workspace), how each tool compares with the server's own snapshot:
//! the mismatches (there should be none) and the known differences. The structs are in
//! `examples/github/`.

use std::path::PathBuf;

use toolmodel_examples::github::{
    self,
    compare::{self, Difference},
};

/// The corpus folder of github-mcp-server's tool snapshots.
fn snapshot_folder() -> PathBuf {
    std::env::var_os("TOOLMODEL_SHARED")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
            PathBuf::from,
        )
        .join("corpus/github-mcp-server")
}

/// Prints the tools and the comparison.
///
/// # Errors
///
/// How many tools have a mismatch or an unreadable snapshot, when any has.
pub fn main() -> Result<(), String> {
    let list = github::tools_list();
    println!(
        "== tools/list\n{}\n",
        serde_json::to_string_pretty(&list).unwrap_or_default()
    );

    let folder = snapshot_folder();
    if !folder.is_dir() {
        println!("(no snapshots at {}: comparison skipped)", folder.display());
        return Ok(());
    }
    println!("== compared with the snapshots in {}", folder.display());
    let mut failed = 0;
    for tool in github::tools() {
        let differences = match compare::read_snapshot(&folder, &tool.name) {
            Ok(snapshot) => compare::compare_tool(&tool.to_mcp_json(), &snapshot),
            Err(err) => {
                println!("{}: snapshot unreadable: {err}", tool.name);
                failed += 1;
                continue;
            }
        };
        let mismatches = differences.iter().filter(|d| d.is_mismatch()).count();
        let nullable = differences
            .iter()
            .filter(|d| matches!(d, Difference::NullableOptional(_)))
            .count();
        if mismatches > 0 {
            failed += 1;
        }
        println!(
            "{:<20} {mismatches} mismatch(es); known: {nullable} nullable optional(s)",
            tool.name
        );
        for difference in differences
            .iter()
            .filter(|d| !matches!(d, Difference::NullableOptional(_)))
        {
            println!("    {difference}");
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} tool(s) differ from their snapshots"))
    }
}
