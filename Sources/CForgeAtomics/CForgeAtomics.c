// The functions are all inline, in include/CForgeAtomics.h; SwiftPM needs a
// source file to build the target.
#include "CForgeAtomics.h"
