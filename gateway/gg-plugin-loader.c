#include <gamegate.h>
