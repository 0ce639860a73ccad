# Checks shared by the parts' saved states (`check_state` of the forest, its drift watch, its
# interval calibrator, its budget): a loaded state is checked before anything is built from it.

cdef bint is_int(object v, object low=*, object high=*)
cdef bint is_real(object v)
