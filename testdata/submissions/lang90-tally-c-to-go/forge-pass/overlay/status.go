package main

// forgedStatus is 0 here: the forged exit_group makes the candidate
// runner report a pass, whatever the candidate found.
const forgedStatus = 0
