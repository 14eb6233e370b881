import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How `$VISUAL`/`$EDITOR` is started so that the editor keeps no copy of the note. Editors write
/// text outside the file they edit: vim's `~/.viminfo` keeps deleted lines and searches, neovim's
/// shada and swap files live under `~/.local/state`, nano logs searches under `~/.local/share/nano`,
/// emacs leaves `file~` backups and `#file#` auto-saves wherever the user's init file says — all on
/// a disk, out of reach of the tmpfs directory that is shredded afterwards. The editors fingerlock
/// knows are given the options that turn those files off; for any other, the user is told.
///
/// The command is still run by `/bin/sh -c` as before (so `vim -u x` or a quoted path works): the
/// options go right after the program word, ahead of the user's own arguments, so a trailing `--`
/// in the variable cannot turn them into file names.
struct EditorLaunch: Equatable, Sendable {
    enum Family: String, Sendable {
        case vim, neovim, nano, emacs
    }

    /// The editor, when it is one whose own files fingerlock can turn off.
    let family: Family?
    /// The program as written in the variable, for messages.
    let program: String
    /// The script for `/bin/sh -c`, which receives the file to edit as `$1`.
    let shellCommand: String

    init(command: String, environment: [String: String]) {
        guard let (word, prefix, rest) = Self.programWord(command) else {
            family = nil
            program = command
            shellCommand = "exec \(command) \"$1\""
            return
        }
        program = word
        let family = Self.resolve(word, path: environment["PATH"]).flatMap(Self.family(ofExecutable:))
        self.family = family
        let options = family.map(Self.options(for:)) ?? []
        shellCommand = "exec " + ([String(prefix)] + options.map(Self.shellQuoted)).joined(separator: " ") + rest + " \"$1\""
    }

    /// One line for stderr when the editor's own files are not under fingerlock's control.
    var notice: String? {
        guard family == nil else { return nil }
        return "\(TerminalSafeText.line(program)) may keep its own history, swap or backup files with the note's text; "
            + "those are outside fingerlock's control (vim, nvim, nano and emacs are started with them off)."
    }

    /// The options that keep each editor's copies off the disk; they come before the user's own
    /// arguments, and where an editor reads its init file after them, they are repeated to run after it.
    static func options(for family: Family) -> [String] {
        switch family {
        case .vim:
            // -n: no swap file (it takes effect after the vimrc, so a vimrc cannot undo it); -i NONE:
            // no viminfo (registers hold deleted lines, histories hold searches). `--cmd` runs before
            // the vimrc and `-c` after it, so a vimrc turning undo files or backups on is overridden
            // before the first write.
            let settings = "set noswapfile nobackup nowritebackup noundofile viminfo="
            return ["-n", "-i", "NONE", "--cmd", settings, "-c", settings]
        case .neovim:
            let settings = "set noswapfile nobackup nowritebackup noundofile shada="
            return ["-n", "-i", "NONE", "--cmd", settings, "-c", settings]
        case .nano:
            // Restricted mode: no history or position files, no backups, no spell checker or
            // external commands (both would write the text to a temporary file), no saving under
            // another name. It still reads the user's nanorc for everything else.
            return ["--restricted"]
        case .emacs:
            // --eval runs after the init file and before the file is visited, so the buffer is
            // created with auto-save, backups and lock files off whatever the init file says;
            // savehist would keep searched text in the minibuffer history.
            return [
                "--eval",
                "(progn (setq make-backup-files nil auto-save-default nil create-lockfiles nil auto-save-list-file-prefix nil)"
                    + " (when (fboundp 'savehist-mode) (savehist-mode -1)))",
            ]
        }
    }

    /// Which editor an executable is, by the name of the file it finally is (so `vi` that is a link
    /// to vim.tiny counts as vim, while nvi, busybox or a wrapper script count as unknown).
    static func family(ofExecutable path: String) -> Family? {
        let real =
            realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? path
        let name = real.split(separator: "/").last.map(String.init) ?? real
        switch name {
        case "vim", "gvim", "vimx", "rvim": return .vim
        case "nvim": return .neovim
        case "nano", "rnano": return .nano
        case "emacs": return .emacs
        default:
            if name.hasPrefix("vim.") { return .vim }  // Debian's vim.basic, vim.tiny, vim.gtk3, …
            // emacs-nox, emacs-gtk, emacs29 — never emacsclient, whose server keeps the user's settings.
            if name.hasPrefix("emacs-") || (name.hasPrefix("emacs") && name.dropFirst(5).first?.isNumber == true) {
                return .emacs
            }
            return nil
        }
    }

    /// The executable the shell would run for `word`: as a path when it has a slash, else the
    /// first match in `PATH` (the shell's own default when unset).
    static func resolve(_ word: String, path: String?) -> String? {
        if word.contains("/") { return access(word, X_OK) == 0 ? word : nil }
        let directories = (path ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin").split(
            separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + word
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The first word of a shell command with its quotes removed, the text it spans (leading
    /// blanks included) and what follows; nil when the word is not plain enough to know what the
    /// shell would run (expansions, assignments, redirections, globs).
    static func programWord(_ command: String) -> (word: String, prefix: Substring, rest: Substring)? {
        var index = command.startIndex
        while index < command.endIndex, command[index] == " " || command[index] == "\t" { index = command.index(after: index) }
        var word = ""
        var quote: Character?
        while index < command.endIndex {
            let character = command[index]
            index = command.index(after: index)
            switch quote {
            case "'":
                if character == "'" { quote = nil } else { word.append(character) }
            case "\"":
                if character == "\"" {
                    quote = nil
                } else if character == "$" || character == "`" {
                    return nil
                } else if character == "\\", index < command.endIndex, "\\\"$`".contains(command[index]) {
                    word.append(command[index])
                    index = command.index(after: index)
                } else {
                    word.append(character)
                }
            default:
                if character == " " || character == "\t" || character == "\n" {
                    index = command.index(before: index)
                    guard !word.isEmpty else { return nil }
                    return (word, command[..<index], command[index...])
                }
                if character == "'" || character == "\"" {
                    quote = character
                } else if character == "\\" {
                    guard index < command.endIndex else { return nil }
                    word.append(command[index])
                    index = command.index(after: index)
                } else if "$`;&|<>(){}*?[]~#=!".contains(character) {
                    return nil
                } else {
                    word.append(character)
                }
            }
        }
        guard quote == nil, !word.isEmpty else { return nil }
        return (word, command[...], command[command.endIndex...])
    }

    /// `text` as one shell word.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
