! A Fortran MPI program (test_probe.sh): the probe's mpi_init_ and
! mpi_finalize_ hooks must mark its init and finalize moments.
program mpi_hello
  use mpi
  integer :: ierr, rank
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Finalize(ierr)
end program mpi_hello
