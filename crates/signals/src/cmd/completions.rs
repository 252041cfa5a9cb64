//! `signals completions` and `signals man`: shell completions and the man
//! page, generated from the clap definition so they never drift from the
//! real flags.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, Shell};

/// Prints the completion script of `shell` on stdout.
pub fn completions(shell: Shell) -> anyhow::Result<u8> {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "signals", &mut out);
    out.flush()?;
    Ok(crate::exit::OK)
}

/// Prints the man page `signals(1)` on stdout, subcommands included.
pub fn man() -> anyhow::Result<u8> {
    let cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    render_subcommand_options(&cmd, "signals", &mut out)?;
    out.write_all(EXIT_STATUS.as_bytes())?;
    man.render_version_section(&mut out)?;
    man.render_authors_section(&mut out)?;
    out.flush()?;
    Ok(crate::exit::OK)
}

/// Each subcommand's own options, as further sections (clap_mangen renders
/// only the top level's).
fn render_subcommand_options(
    cmd: &clap::Command,
    prefix: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("{prefix} {}", sub.get_name());
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone().bin_name(&name));
        man.render_synopsis_section(out)?;
        man.render_description_section(out)?;
        man.render_options_section(out)?;
        render_subcommand_options(sub, &name, out)?;
    }
    Ok(())
}

/// The exit codes, as in the README.
const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
0
done
.TP
1
an error stopped the command, or validate found problems
.TP
2
bad command\-line usage
.TP
3
collect: some repositories failed; the others were committed
.TP
4
collect: stopped on a rate limit longer than max_rate_limit_wait_secs
.TP
5
collect: the host refused the token (401); stopped at once
.TP
6
collect: the host did not answer after the retries; stopped at once
.TP
7
any command: the disk is full; stopped at once, nothing half\-written kept
"#;
