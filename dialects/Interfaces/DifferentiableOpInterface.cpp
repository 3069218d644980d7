//===- DifferentiableOpInterface.cpp - Reverse-mode rules -----------------===//
#include "dialects/Interfaces/DifferentiableOpInterface.h"

#include "dialects/Interfaces/DifferentiableOpInterface.cpp.inc"
