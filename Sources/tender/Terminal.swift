import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a line from the terminal with echo off.
func readWithoutEcho(_ prompt: String) throws -> String {
    FileHandle.standardError.write(Data(prompt.utf8))
    var original = termios()
    let isTerminal = tcgetattr(STDIN_FILENO, &original) == 0
    if isTerminal {
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    }
    defer {
        if isTerminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }
    guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no input") }
    return line
}
