package limits

// MaxInteractedOutput bounds what the program sends its interactor in one
// test (protocol.Interactor), as MaxCheckedOutput bounds what a checker
// is given: whichever grades it, a program's answer is given whole up to
// the same bound. An interactor reads as a checker does, often a line or
// a token at a time with no bound of its own (testlib's readLine), so a
// program's endless line would otherwise take the interactor's memory,
// CheckerMemory, and the test would be the judge's failure. Past it the
// host stops the program, and the test is its own wrong answer.
const MaxInteractedOutput = MaxCheckedOutput
