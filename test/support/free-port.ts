// The test harness and the bench share one way to find a free port.
export { freePort, freePortIn } from '../../tools/dev/free-port';
