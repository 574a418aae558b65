#include "gamegate.h"
