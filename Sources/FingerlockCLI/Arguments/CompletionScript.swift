import ArgumentParser
import Foundation

/// The bash, zsh and fish completion scripts, as ArgumentParser writes them, made safe for words
/// that are data (note titles, from any import). For bash, the words the binary offers at TAB are
/// read as literal lines instead of through `compgen -W "$(…)"`, which expands `$(…)`, backquotes
/// and `$VAR` in every word it is given: a note titled `zz$(touch ~/PWNED)` would otherwise run in
/// the user's shell at `fingerlock notes show z<TAB>`. The binary filters what it prints by what was
/// typed (`NoteCompletion`, the `.custom` completions) and, for bash, quotes it for the word as
/// typed (an opened quote included), so bash adds each line as it is, with readline's filename
/// handling off. zsh reads the lines with `(f)` and fish with its own command
/// substitution, neither of which expands them; zsh's colons are escaped by the binary
/// (`NoteCompletion.lines`), and its `!` by zsh once told to (`bangQuotingZsh`).
enum CompletionScript {
    /// The script for `shell`; a usage error for a shell there is none for.
    static func generate(for shell: String) throws(CLIError) -> String {
        guard let kind = CompletionShell(rawValue: shell) else {
            throw CLIError(.usage, "--generate-completion-script \(shell): expected bash, zsh or fish.")
        }
        let script = Fingerlock.completionScript(for: kind)
        return switch kind {
        case .bash: literalBash(script)
        case .zsh: foldersWithoutSpaceZsh(bangQuotingZsh(script))
        default: script
        }
    }

    /// zsh's completion system turns BANG_HIST off while it runs, and zsh then leaves a `!` in a
    /// word unquoted: `t!#x` went on the line as it is, and `!…` is history expansion at Enter
    /// (`!-2` brings back an earlier command line, which then runs). With the option on in the
    /// function that adds the binary's words, zsh quotes `!` too.
    static func bangQuotingZsh(_ script: String) -> String {
        script.replacingOccurrences(
            of: "__fingerlock_custom_complete() {\n", with: "__fingerlock_custom_complete() {\n    setopt localoptions banghist\n")
    }

    /// zsh adds a space after every word `_describe` offers; a folder (a word ending in `/`, which
    /// only note titles give) is offered without one, so the next TAB goes on into it.
    static func foldersWithoutSpaceZsh(_ script: String) -> String {
        script.replacingOccurrences(
            of: "    _describe -V '' non_empty_completions -- empty_completions -P $'\\'\\''\n",
            with: """
                    local -a folders=("${(M)non_empty_completions[@]:#*/}") others=("${non_empty_completions[@]:#*/}")
                    local ret=1
                    (( ${#folders} )) && _describe -V '' folders -S '' && ret=0
                    _describe -V '' others -- empty_completions -P $'\\'\\'' && ret=0
                    return ret

                """)
    }

    /// The bash function that adds the lines a command prints to COMPREPLY, each as one word.
    static let literalFunction = "__fingerlock_add_literal_completions"

    /// `script` with every custom completion read literally; ArgumentParser's own call is
    /// `__fingerlock_add_completions -W "$(__fingerlock_custom_complete ARGS…)"` on one line.
    static func literalBash(_ script: String) -> String {
        let pattern = #/^(?<indent>\s*)__fingerlock_add_completions -W "\$\((?<call>__fingerlock_custom_complete .*)\)"$/#
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for index in lines.indices {
            if let match = lines[index].wholeMatch(of: pattern) {
                lines[index] = "\(match.indent)\(literalFunction) \(match.call)"
            }
        }
        // The binary quotes each line for the word as typed (`NoteCompletion.bashLine`) and is told
        // the text readline replaces; readline's own filename quoting stays off, since with it bash
        // asks of every word whether it names a directory, which expands `${…}` and `$((…))` in it.
        // Process substitution, not a here-string: bash before 5.1 writes a here-string to a
        // temporary file, and titles are not to touch a disk.
        let function = """
            \(literalFunction)() {
                local completion
                compopt +o filenames 2>/dev/null
                while IFS='' read -r completion; do
                    [[ -n "${completion}" ]] && COMPREPLY+=("${completion}")
                done < <(FINGERLOCK_COMPLETION_TEXT="${cur}" "${@}")
                # A folder (a title up to a /, its quote closed) takes no space after it.
                if [[ ${#COMPREPLY[@]} -eq 1 && ( "${COMPREPLY[0]}" == */ || "${COMPREPLY[0]}" == */[\\'\\"] ) ]]; then
                    compopt -o nospace 2>/dev/null
                fi
            }

            """
        guard let registration = lines.firstIndex(where: { $0.hasPrefix("complete ") }) else {
            return lines.joined(separator: "\n")
        }
        lines.insert(function, at: registration)
        return lines.joined(separator: "\n")
    }
}
