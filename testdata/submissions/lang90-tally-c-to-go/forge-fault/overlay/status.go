package main

// forgedStatus is the status the forged exit_group gives the candidate
// runner: 71, the runner's own "the tree does not build" (forge-pass,
// whose base this fixture is, makes it 0).
const forgedStatus = 71
