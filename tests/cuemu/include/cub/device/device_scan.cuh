/* cuemu: see cub/cuemu_cub.h */
#include "../cuemu_cub.h"
