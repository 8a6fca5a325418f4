//! Vato's folder of long-lived data (tables, the proof store): one place per user, found
//! by the XDG rules, each part of it overridable by an environment variable.

use std::ffi::OsString;
use std::path::PathBuf;

/// The folder `part` of Vato's data folder: `$variable` when set (`None` when set to
/// nothing, which switches the part off), else `vato/<part>` in the user's data folder
/// (`$XDG_DATA_HOME`, by default `~/.local/share`); `None` when there is no home either.
pub fn data_folder(variable: &str, part: &str) -> Option<PathBuf> {
    data_folder_from(variable, part, |name| std::env::var_os(name))
}

/// [`data_folder`] with the environment read through `var`, for tests.
pub fn data_folder_from(
    variable: &str,
    part: &str,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    if let Some(named) = var(variable) {
        return (!named.is_empty()).then(|| PathBuf::from(named));
    }
    // The XDG rules: a relative value is ignored.
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| {
            var("HOME")
                .filter(|home| !home.is_empty())
                .map(|home| PathBuf::from(home).join(".local/share"))
        })?;
    Some(data.join("vato").join(part))
}
