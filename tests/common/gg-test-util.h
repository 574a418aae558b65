/* gg-test-util.h: helpers shared by gamegate's test programs. */
#pragma once

#include <gamegate.h>
