#include "gg-test-util.h"
