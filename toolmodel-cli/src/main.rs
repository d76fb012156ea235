//! The `toolmodel` command; see `toolmodel --help` and the `toolmodel_cli` library.

use std::{
    io::{self, BufWriter, Write as _},
    process::ExitCode,
};

use clap::Parser as _;
use toolmodel_cli::{Cli, Status, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Not locked for the whole run: `toolmodel gateway` writes the MCP session to stdout and
    // warnings to stderr from its runtime's threads.
    let mut out = BufWriter::new(io::stdout());
    let mut errors = io::stderr();
    let result = run(&cli, &mut out, &mut errors).and_then(|status| out.flush().map(|()| status));
    match result {
        Ok(status) => status.into(),
        // The reader of stdout went away (`toolmodel lint ... | head`): stop quietly.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Status::Failure.into(),
        Err(err) => {
            let _ = writeln!(errors, "error: cannot write the output: {err}");
            Status::Failure.into()
        }
    }
}
